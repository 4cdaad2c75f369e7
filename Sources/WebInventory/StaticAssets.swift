import SymbolServer

/// The one style sheet and the one script, ours, in the binary: nothing is fetched from anywhere
/// else, and the pages work without the script (it only searches as one types).
enum StaticAssets {
    struct Asset {
        var contentType: String
        var text: String
        var etag: String
    }

    static func named(_ name: String) -> Asset? {
        switch name {
        case "inventory.css": css
        case "inventory.js": script
        default: nil
        }
    }

    static func answer(_ asset: Asset, request: PageRequest) -> PageAnswer {
        let headers = [("ETag", asset.etag), ("Cache-Control", "max-age=300")] + WebInventory.commonHeaders
        if request.header("If-None-Match") == asset.etag { return PageAnswer(status: 304, headers: headers, body: []) }
        return PageAnswer(status: 200, headers: [("Content-Type", asset.contentType)] + headers, body: Array(asset.text.utf8))
    }

    static let css = Asset(contentType: "text/css; charset=utf-8", text: cssText, etag: "\"" + IconCache.digest(Array(cssText.utf8)) + "\"")
    static let script = Asset(contentType: "text/javascript; charset=utf-8", text: scriptText, etag: "\"" + IconCache.digest(Array(scriptText.utf8)) + "\"")

    static let cssText = """
    body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fbfbfd; }
    header { display: flex; flex-wrap: wrap; gap: .5em 1.5em; align-items: center; padding: .6em 1em; background: #e8e8ed; }
    header .home { font-weight: 700; color: inherit; text-decoration: none; }
    header nav a { margin-right: .8em; }
    form.search { display: flex; gap: .4em; flex: 1; min-width: 20em; }
    form.search input { flex: 1; padding: .3em .5em; }
    main { padding: 0 1em 2em; max-width: 72em; }
    footer { color: #6e6e73; font-size: 13px; padding: 1em; }
    ul.results { list-style: none; padding: 0; }
    li.result { display: flex; align-items: center; gap: .8em; padding: .3em 0; border-bottom: 1px solid #e5e5ea; }
    li.result a { display: flex; align-items: center; gap: .6em; min-width: 16em; }
    .icon { width: 32px; height: 32px; }
    .icon.none { display: inline-block; background: #d2d2d7; border-radius: 6px; }
    .icon.large { width: 128px; height: 128px; vertical-align: middle; margin-right: .4em; }
    .identifier, .uuid { font-family: ui-monospace, monospace; font-size: 13px; }
    .kind, .version { color: #6e6e73; }
    .errors, .problems { color: #b00020; }
    dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
    dl.facts dt { font-weight: 600; }
    dl.facts dd { margin: 0; overflow-wrap: anywhere; }
    table { border-collapse: collapse; margin: .5em 0; }
    th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid #e5e5ea; vertical-align: top; }
    pre { margin: 0; white-space: pre-wrap; font-size: 13px; }
    svg.bars .label, svg.bars .value { font: 13px system-ui, sans-serif; fill: #1d1d1f; }
    svg.bars .bar0 { fill: #34c759; } svg.bars .bar1 { fill: #ff9f0a; } svg.bars .bar2 { fill: #8e8e93; }
    """

    static let scriptText = """
    // Search as one types: the same page the form would load, its <main> swapped in. The form
    // works the same without this script.
    (function () {
      "use strict";
      var box = document.getElementById("q");
      if (!box || !window.fetch || !window.DOMParser) return;
      var form = box.form, timer = null, latest = 0;
      function search() {
        var query = new URLSearchParams(new FormData(form)).toString(), number = ++latest;
        fetch("/?" + query, { headers: { "Accept": "text/html" } }).then(function (response) {
          return response.ok ? response.text() : null;
        }).then(function (text) {
          if (text === null || number !== latest) return;
          var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("main");
          var main = document.getElementById("main");
          if (fresh && main) { main.replaceChildren.apply(main, Array.from(fresh.childNodes)); }
          history.replaceState(null, "", "/?" + query);
        }).catch(function () {});
      }
      box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 200); });
    })();
    """
}
