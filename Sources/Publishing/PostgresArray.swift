/// A text array as one parameter (`$1::text[]`): a statement's list of values is one parameter
/// whatever its length, never SQL spliced together.
enum PostgresArray {
    /// The array's literal: every element quoted, with `"` and `\` escaped. NUL is left out, as
    /// `PostgresCopyRows` leaves it out of the text it stores (a parameter is a C string).
    static func literal(_ values: [String]) -> String {
        "{" + values.map { value in
            var quoted = "\""
            for character in value.unicodeScalars where character != "\0" {
                if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}"
    }
}
