enum SearchTemplate {
    static let text = """
    <h1>{{heading}}</h1>
    {{^searched}}<p class="message">An identifier (<code>org.example.Chess</code>), a glob (<code>org.example.*</code>), a name in any language, a UUID or build-id, or a path; or a kind or architecture alone.</p>{{/searched}}
    <section id="results" aria-live="polite">{{#searched}}
    <p class="count">{{count}} {{#one}}bundle{{/one}}{{^one}}bundles{{/one}}{{#truncated}}, the first {{shown}} listed (<a href="{{jsonLink}}">all as JSON</a>){{/truncated}}</p>
    <ul class="results">
    {{#results}}
    <li class="result"><a href="{{{link}}}">{{#icon}}<img class="icon" src="{{{icon}}}" width="32" height="32" alt="">{{/icon}}{{^icon}}<span class="icon none"></span>{{/icon}}<span class="name">{{{name}}}</span></a>
    <span class="identifier">{{{identifier}}}</span> <span class="version">{{{version}}}</span> <span class="kind">{{{kind}}}</span>{{#host}} <span class="host">{{{host}}}</span>{{/host}}{{#errors}} <span class="errors">{{errors}} errors</span>{{/errors}}</li>
    {{/results}}
    </ul>
    {{/searched}}</section>
    {{#home}}
    <section class="reports"><h2>Reports</h2><ul>
    <li><a href="/reports/apple-silicon">Applications with no native arm64 code</a> (what needs Rosetta)</li>
    <li><a href="/reports/backups">Time Machine backups</a>, the oldest first</li>
    <li><a href="/reports/errors">Bundles with errors</a></li>
    </ul></section>
    {{/home}}
    """
}

enum BundleTemplate {
    static let text = """
    <h1 class="bundle">{{#icon}}<img class="icon large" src="{{icon}}" width="128" height="128" alt="">{{/icon}}<span class="name">{{name}}</span></h1>
    <dl class="facts">{{#facts}}<dt>{{label}}</dt><dd>{{#link}}<a href="{{link}}">{{value}}</a>{{/link}}{{^link}}{{value}}{{/link}}</dd>{{/facts}}</dl>
    {{#hasNames}}<h2>Names</h2><table class="names"><tr><th>Localization</th><th>Display name</th></tr>{{#names}}<tr><td>{{localization}}</td><td>{{name}}</td></tr>{{/names}}</table>{{/hasNames}}
    {{#hasBinaries}}<h2>Executables and debug symbols</h2><table class="binaries"><tr><th>File</th><th>Architecture</th><th>Type</th><th>UUID</th><th>Platform</th><th>Downloads</th></tr>
    {{#binaries}}<tr><td>{{file}}</td><td>{{arch}}</td><td>{{fileType}}</td><td class="uuid">{{uuid}}</td><td>{{platform}}</td><td>{{#key}}<a class="debuginfo" href="/buildid/{{key}}/debuginfo">debuginfo</a> <a class="executable" href="/buildid/{{key}}/executable">executable</a>{{/key}}</td></tr>{{/binaries}}
    </table>{{/hasBinaries}}
    {{#hasOpens}}<h2>Opens</h2><table class="opens"><tr><th>Extensions and types</th><th>Rank</th><th>Role</th></tr>{{#opens}}<tr><td>{{what}}</td><td>{{rank}}</td><td>{{role}}</td></tr>{{/opens}}</table>{{/hasOpens}}
    {{#hasProblems}}<h2>Errors and warnings</h2><ul class="problems">{{#problems}}<li>{{.}}</li>{{/problems}}</ul>{{/hasProblems}}
    {{#hasInfo}}<h2>Info dictionary</h2><table class="info">{{#info}}<tr><th>{{key}}</th><td><pre>{{value}}</pre></td></tr>{{/info}}</table>{{/hasInfo}}
    <p><a href="{{jsonLink}}">This bundle as JSON</a></p>
    """
}

enum MessageTemplate {
    static let text = """
    <h1>{{heading}}</h1>
    <p class="message">{{message}}</p>
    """
}
