enum AppleSiliconTemplate {
    static let text = """
    <h1>Applications with no native arm64 code</h1>
    <p>These applications have Intel code only: on an Apple silicon Mac they run through Rosetta, which
    Apple keeps for general use only up to macOS 27.</p>
    <figure class="chart">{{&chart}}<figcaption>Applications by the code they carry</figcaption></figure>
    {{#hasHosts}}<table class="report" id="hosts"><thead><tr><th>Host</th><th>Native arm64</th><th>Intel only</th><th>No Mac code</th></tr></thead>
    <tbody>{{#hosts}}<tr><td>{{host}}</td><td>{{native}}</td><td>{{intel}}</td><td>{{other}}</td></tr>{{/hosts}}</tbody></table>{{/hasHosts}}
    <table class="report sortable" id="rosetta">
    <thead><tr>{{#columns}}<th><a href="{{link}}">{{label}}</a></th>{{/columns}}</tr></thead>
    <tbody>{{#rows}}<tr><td><a href="{{link}}">{{name}}</a></td><td>{{identifier}}</td><td>{{version}}</td><td>{{archs}}</td><td>{{host}}</td><td>{{path}}</td></tr>{{/rows}}</tbody>
    </table>
    {{^rows}}<p class="message">Every catalogued Mac application has native arm64 code.</p>{{/rows}}
    <p><a href="/api/reports/apple-silicon">This report as JSON</a></p>
    """
}

enum BackupsTemplate {
    static let text = """
    <h1>Time Machine backups</h1>
    <table class="report" id="backups"><thead><tr><th>Mac</th><th>Hardware UUID</th><th>Last snapshot</th><th>Age</th><th>Snapshots</th><th>Size on disk</th><th>Where</th></tr></thead>
    <tbody>{{#rows}}<tr><td><a href="{{link}}">{{model}}</a></td><td>{{hostUUID}}</td><td>{{last}}</td><td>{{age}}</td><td>{{snapshots}}</td><td>{{size}}</td><td>{{path}}</td></tr>{{/rows}}</tbody>
    </table>
    {{^rows}}<p class="message">No Time Machine backup is catalogued.</p>{{/rows}}
    <p><a href="/api/reports/backups">This report as JSON</a></p>
    """
}

enum ErrorsTemplate {
    static let text = """
    <h1>Bundles with errors</h1>
    <table class="report" id="errors"><thead><tr><th>Bundle</th><th>Identifier</th><th>Errors</th><th>Where</th></tr></thead>
    <tbody>{{#rows}}<tr><td><a href="{{link}}">{{name}}</a></td><td>{{identifier}}</td><td><ul>{{#errors}}<li>{{.}}</li>{{/errors}}</ul></td><td>{{path}}</td></tr>{{/rows}}</tbody>
    </table>
    {{^rows}}<p class="message">No catalogued bundle has an error.</p>{{/rows}}
    <p><a href="/api/reports/errors">This report as JSON</a></p>
    """
}

enum OpenWithTemplate {
    static let text = """
    <h1>Open with</h1>
    <form class="openwith" action="/open-with" method="get">
    <label>Extension <input name="ext" value="{{ext}}" size="8"></label>
    <label>Type <input name="type" value="{{type}}" size="24"></label>
    <label>URL scheme <input name="scheme" value="{{scheme}}" size="10"></label>
    <button type="submit">Ask</button>
    </form>
    {{#asked}}
    <h2>What opens {{asked}}</h2>
    {{#typeLink}}<p>Type: <a href="{{typeLink}}">{{typeName}}</a></p>{{/typeLink}}
    <table class="report" id="handlers"><thead><tr><th></th><th>Application</th><th>Identifier</th><th>Version</th><th>Rank</th><th>Role</th><th>Claim</th></tr></thead>
    <tbody>{{#rows}}<tr><td>{{#isDefault}}default{{/isDefault}}</td><td><a href="{{link}}">{{name}}</a></td><td>{{identifier}}</td><td>{{version}}</td><td>{{rank}}</td><td>{{role}}</td><td>{{claim}}</td></tr>{{/rows}}</tbody>
    </table>
    {{^rows}}<p class="message">No catalogued application claims it.</p>{{/rows}}
    <p><a href="{{jsonLink}}">This answer as JSON</a></p>
    {{/asked}}
    """
}

enum TypeTemplate {
    static let text = """
    <h1>{{identifier}}</h1>
    {{#declared}}
    <dl class="facts"><dt>Description</dt><dd>{{description}}</dd><dt>Declared by</dt><dd>{{origin}} {{declaredBy}}</dd>
    <dt>Conforms to</dt><dd>{{#conformsTo}}<a href="{{link}}">{{name}}</a> {{/conformsTo}}</dd>
    <dt>Extensions</dt><dd>{{#extensions}}<a href="{{link}}">.{{name}}</a> {{/extensions}}</dd><dt>MIME types</dt><dd>{{mimeTypes}}</dd></dl>
    {{/declared}}
    {{^declared}}<p class="message">No catalogued application or system table declares this type.</p>{{/declared}}
    <p><a href="{{openWithLink}}">What opens it</a></p>
    """
}
