/// The page around every page's body. `{{{body}}}` is the one unescaped value here: it is the output
/// of our own templates, whose every value was escaped there (the search rows' by `HTMLText`).
enum LayoutTemplate {
    static let text = """
    <!DOCTYPE html>
    <html lang="{{lang}}">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{title}} · bundlefs</title>
    <link rel="stylesheet" href="/static/inventory.css">
    <script src="/static/inventory.js" defer></script>
    </head>
    <body>
    <header><a class="home" href="/">bundlefs</a>
    <nav><a href="/reports/apple-silicon">Apple silicon</a> <a href="/reports/backups">Backups</a> <a href="/reports/errors">Errors</a> <a href="/open-with">Open with</a></nav>
    <form class="search" action="/" method="get" role="search">
    <input id="q" name="q" type="search" value="{{q}}" placeholder="identifier, glob, name, UUID or /path" autocomplete="off">
    <select name="kind" aria-label="kind"><option value="">any kind</option>{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/kinds}}</select>
    <select name="arch" aria-label="architecture"><option value="">any architecture</option>{{#archs}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/archs}}</select>
    <button type="submit">Search</button>
    </form>
    </header>
    <main id="main">
    {{{body}}}
    </main>
    <footer>{{host}} · the catalogue as it is at this request</footer>
    </body>
    </html>

    """
}
