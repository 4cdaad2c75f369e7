/// The English language names old bundles use for their lproj directories (`English.lproj`),
/// mapped to ISO codes as CoreFoundation's table does, plus GNUstep's spellings.
enum LegacyLanguageNames {
    static let table: [String: String] = [
        "Afrikaans": "af", "Albanian": "sq", "Amharic": "am", "Arabic": "ar", "Armenian": "hy", "Assamese": "as",
        "Aymara": "ay", "Azerbaijani": "az", "Basque": "eu", "Belarusian": "be", "Belorussian": "be",
        "Bengali": "bn", "BrazilianPortuguese": "pt-BR", "Brazilian Portuguese": "pt-BR", "Breton": "br",
        "Bulgarian": "bg", "Burmese": "my", "Byelorussian": "be", "Catalan": "ca", "Chewa": "ny", "Chichewa": "ny",
        "Chinese": "zh", "Croatian": "hr", "Czech": "cs", "Danish": "da", "Dutch": "nl", "Dzongkha": "dz",
        "English": "en", "Esperanto": "eo", "Estonian": "et", "Faroese": "fo", "Farsi": "fa", "Finnish": "fi",
        "Flemish": "nl-BE", "French": "fr", "Galician": "gl", "Gallegan": "gl", "Georgian": "ka", "German": "de",
        "Greek": "el", "Greenlandic": "kl", "Guarani": "gn", "Gujarati": "gu", "Hawaiian": "haw", "Hebrew": "he",
        "Hindi": "hi", "Hungarian": "hu", "Icelandic": "is", "Indonesian": "id", "Inuktitut": "iu", "Irish": "ga",
        "Italian": "it", "Japanese": "ja", "Javanese": "jv", "Kalaallisut": "kl", "Kannada": "kn", "Kashmiri": "ks",
        "Kazakh": "kk", "Khmer": "km", "Kinyarwanda": "rw", "Kirghiz": "ky", "Korean": "ko", "Kurdish": "ku",
        "Lao": "lo", "Latin": "la", "Latvian": "lv", "Lithuanian": "lt", "Lojban": "jbo", "Macedonian": "mk",
        "Malagasy": "mg", "Malay": "ms", "Malayalam": "ml", "Maltese": "mt", "Manx": "gv", "Marathi": "mr",
        "Moldavian": "mo", "Mongolian": "mn", "Nepali": "ne", "Norwegian": "nb", "NorwegianBokmal": "nb",
        "NorwegianNynorsk": "nn", "Nyanja": "ny", "Nynorsk": "nn", "Oriya": "or", "Oromo": "om", "Panjabi": "pa",
        "Pashto": "ps", "Persian": "fa", "Polish": "pl", "Portuguese": "pt", "Punjabi": "pa", "Pushto": "ps",
        "Quechua": "qu", "Romanian": "ro", "Ruanda": "rw", "Rundi": "rn", "Russian": "ru", "Sami": "se",
        "Sanskrit": "sa", "Scottish": "gd", "Serbian": "sr", "SimplifiedChinese": "zh-Hans",
        "Simplified Chinese": "zh-Hans", "Sindhi": "sd", "Sinhalese": "si", "Slovak": "sk", "Slovenian": "sl",
        "Somali": "so", "Spanish": "es", "Sundanese": "su", "Swahili": "sw", "Swedish": "sv", "Tagalog": "fil",
        "Tajik": "tg", "Tajiki": "tg", "Tamil": "ta", "Tatar": "tt", "Telugu": "te", "Thai": "th", "Tibetan": "bo",
        "Tigrinya": "ti", "Tongan": "to", "TraditionalChinese": "zh-Hant", "Traditional Chinese": "zh-Hant",
        "Turkish": "tr", "Turkmen": "tk", "Uighur": "ug", "Ukrainian": "uk", "Urdu": "ur", "Uzbek": "uz",
        "Vietnamese": "vi", "Welsh": "cy", "Yiddish": "yi",
    ]

    /// ISO 639-2 codes seen in lproj names, mapped to their two-letter forms.
    static let threeLetter: [String: String] = [
        "eng": "en", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "ita": "it", "nld": "nl", "dut": "nl",
        "spa": "es", "jpn": "ja", "por": "pt", "swe": "sv", "nor": "nb", "nob": "nb", "nno": "nn", "dan": "da",
        "fin": "fi", "kor": "ko", "rus": "ru", "pol": "pl", "hun": "hu", "ces": "cs", "cze": "cs", "ell": "el",
        "gre": "el", "tur": "tr", "zho": "zh", "chi": "zh",
    ]
}
