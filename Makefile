# bundlefs: build, test, benchmark and demo targets. Each installs the Debian packages it needs,
# because nothing installed by hand survives to the next machine.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEB_PACKAGES := libsqlite3-dev sqlite3 pkg-config fuse3 libfuse3-dev libicns-dev libtiff-dev libpng-dev libarchive-dev libarchive-tools cpio dpkg-dev lintian debootstrap zip zstd file attr bsdutils binutils findutils tar diffutils systemd man-db faketime python3 time libopenjp2-tools libpq-dev postgresql debuginfod gdb curl apt-utils gnupg chromium
# The benchmark compares the view with bindfs.
BENCH_PACKAGES := bindfs
DEMO := .demo

# The toolchain lives in /opt/swift on these machines.
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: deps build release test package-test deb apt-repo bench fuzz gnustep-compare sample demo screenshots man install uninstall clean

# The version is written once, in Swift (`bundlefs --version` prints it); the package takes it from there.
VERSION := $(shell sed -n 's/^ *\(package \)\{0,1\}static let string = "\(.*\)"$$/\2/p' Sources/CatalogueCommands/Version.swift)
DEB := bundlefs_$(VERSION)_amd64.deb

deps:
	@missing=$$(for package in $(DEB_PACKAGES) $(EXTRA_PACKAGES); do dpkg -s $$package >/dev/null 2>&1 || echo $$package; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

# Two binaries: `bundlefs`, which answers query and symbols linking SQLite alone, and hands every
# other command to `bundlefs-full` (Docs/packaging.md).
release: deps
	$(SWIFT) build -c release --product bundlefs
	$(SWIFT) build -c release --product bundlefs-full

# Target dependencies against imports, a debug build and every test. Tests that need ../shared/corpus
# skip, saying so, when it is absent. The tests run as several processes at once, their trees on a
# tmpfs (.ci/run-tests, Docs/testing.md); `swift test --skip-build --filter NAME` runs one.
test: deps
	.ci/check-dependencies
	$(SWIFT) build --build-tests
	.ci/run-tests
	@$(MAKE) --no-print-directory package-test

# The Debian package (Docs/packaging.md): the Swift runtime and Foundation linked in statically
# (its own build folder: a static build does not share the dynamic one's objects), every C
# library a dependency that dpkg-shlibdeps names, checked by lintian. Neither exports the static
# libraries' symbols: the loader would search 10,000 names at every start (Docs/packaging.md).
STATIC_BUILD = $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --scratch-path .build-static -Xlinker --no-export-dynamic
deb: deps
	$(STATIC_BUILD) --product bundlefs
	$(STATIC_BUILD) --product bundlefs-full
	Debian/build-deb .build-static/release $(VERSION) $(DEB)

# Installs the package into a minimal Debian 12 made by debootstrap (kept between runs) and runs
# the main job there.
# Also builds the package a second time from the same binaries (the two must be the same bytes),
# and once more with a newer version, which the install test upgrades to from a signed apt
# repository.
package-test: deb
	LINTIAN=no Debian/build-deb .build-static/release $(VERSION) .build-static/again.deb >/dev/null
	cmp $(DEB) .build-static/again.deb && echo "reproducible: a second build of $(DEB) is byte-identical"
	LINTIAN=no Debian/build-deb .build-static/release $(VERSION)+upgrade1 .build-static/newer.deb >/dev/null
	Debian/install-test $(DEB) .build-static/newer.deb

# A signed apt repository of the package in apt-repo/ (Docs/packaging.md): APT_REPO_KEY names the
# secret key to sign with; without it a throw-away key is made beside the repository.
apt-repo: deb
	Debian/make-apt-repo apt-repo $(DEB)

# The figures of SPEC.md, as ratios to baselines measured in the same run (see Docs/benchmarks.md).
bench:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(BENCH_PACKAGES)"
	$(SWIFT) build -c release --product bundlefs
	$(SWIFT) build -c release --product bundlefs-full
	$(SWIFT) build -c release --product bundlefs-bench
	$(STATIC_BUILD) --product bundlefs
	$(STATIC_BUILD) --product bundlefs-full
	.build/release/bundlefs-bench --output bench-out

# Long parser fuzzing; ITERATIONS and SEED may be given.
ITERATIONS ?= 2000000
fuzz: deps
	$(SWIFT) build -c release --product bundlefs-fuzz
	.build/release/bundlefs-fuzz --iterations $(ITERATIONS) $(if $(SEED),--seed $(SEED))

# Launch Services against GNUstep's own NSWorkspace on Debian's GNUstep applications, fetched with
# apt-get download (Docs/launch-services.md, "Against GNUstep"): prints how many extensions agree.
GNUSTEP_PACKAGES := gobjc libgnustep-gui-dev gnustep-make gnustep-gui-runtime
gnustep-compare:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(GNUSTEP_PACKAGES)"
	$(SWIFT) build --product bundlefs
	$(SWIFT) build --product bundlefs-full
	.ci/gnustep-compare/run

# Regenerates the sample tree that ships in Sample/ (a test checks the two agree).
sample:
	$(SWIFT) build --product bundlefs-sample
	.build/debug/bundlefs-sample Sample

# PNG screenshots of the web inventory's main pages, served from the sample tree by `serve-web`
# and taken by headless chromium (Docs/web.md shows them).
SHOTS := .screenshots
CHROMIUM_SHOT := chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --hide-scrollbars \
	--host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' --user-data-dir=$(SHOTS)/profile --window-size=1200,820
screenshots: deps
	$(SWIFT) build --product bundlefs && $(SWIFT) build --product bundlefs-full && $(SWIFT) build --product bundlefs-sample
	@rm -rf $(SHOTS) && mkdir -p $(SHOTS) Docs/images
	.build/debug/bundlefs-sample $(SHOTS)/tree >/dev/null
	.build/debug/bundlefs index --catalogue $(SHOTS)/catalogue.sqlite $(SHOTS)/tree >/dev/null
	@.build/debug/bundlefs serve-web --listen 127.0.0.1:0 --catalogue $(SHOTS)/catalogue.sqlite 2>$(SHOTS)/web.log & echo $$! > $(SHOTS)/pid; \
	url=""; for i in $$(seq 300); do url=$$(grep -o 'http://127.0.0.1:[0-9]*' $(SHOTS)/web.log | head -n 1); [ -n "$$url" ] && break; sleep 0.1; done; \
	[ -n "$$url" ] || { cat $(SHOTS)/web.log; kill $$(cat $(SHOTS)/pid); exit 1; }; \
	chess=$$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$$(realpath $(SHOTS)/tree)/Applications/Chess.app"); \
	for page in "home|/" "search|/?q=chess" "bundle|/bundle?path=$$chess" "apple-silicon|/reports/apple-silicon" "errors|/reports/errors" "open-with|/open-with?ext=txt"; do \
		name=$${page%%|*}; target=$${page#*|}; \
		$(CHROMIUM_SHOT) --lang=de --accept-lang=de --screenshot=Docs/images/web-$$name.png "$$url$$target" 2>/dev/null || { kill $$(cat $(SHOTS)/pid); exit 1; }; \
		echo "Docs/images/web-$$name.png  $$target"; \
	done; kill $$(cat $(SHOTS)/pid)

# Sets everything up and runs the main job on the sample tree: index and query it, then mount its
# view, show it, and unmount. The build's output goes to $(DEMO)/build.log behind a one-line
# progress; each step of the demo has a heading.
demo: deps
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@log=$(DEMO)/build.log; started=$$(date +%s); \
	( $(SWIFT) build --product bundlefs && $(SWIFT) build --product bundlefs-full ) > $$log 2>&1 & pid=$$!; \
	printf 'building bundlefs (log: %s) ' "$$log"; \
	while kill -0 $$pid 2>/dev/null; do \
		[ -t 1 ] && printf '\rbuilding bundlefs (log: %s) %s ' "$$log" "$$(grep -o '^\[[0-9]*/[0-9]*\]' $$log | tail -n 1)"; sleep 1; \
	done; \
	if wait $$pid; then printf '\rbuilt bundlefs in %s s (log: %s)%20s\n' "$$(( $$(date +%s) - started ))" "$$log" ""; \
	else printf '\nthe build failed; the end of %s:\n' "$$log"; tail -n 30 $$log; exit 1; fi
	@set -e; export BUNDLEFS_CATALOGUE=$(CURDIR)/$(DEMO)/catalogue.sqlite; bundlefs=$(CURDIR)/.build/debug/bundlefs; \
	step() { printf '\n\n=== %s ===\n' "$$*"; }; \
	run() { printf '\n$$ bundlefs %s\n' "$$*"; "$$bundlefs" "$$@"; }; \
	step "Index the sample tree, and find bundles by identifier"; \
	run index Sample; \
	run query --lang de; \
	run query org.example.Terminal --json --lang de; \
	step "One bundle as a Mac reads it: display name, localizations, resources"; \
	run show Sample/Applications/Terminal.app --lang de-AT; \
	run resolve Sample/Applications/Chess.app Rules.html --lang en-IN; \
	run resolve Sample/Applications/Chess.app board.png --lang en; \
	step "Executables and debug symbols, by UUID"; \
	run query --uuid 48f282de1bd5f16267a9da7d51476fd4; \
	run symbols 48F282DE-1BD5-F162-67A9-DA7D51476FD4; \
	step "Which application opens what"; \
	run open-with Sample/Documents/Drawing.sketch; \
	run types org.example.sketch; \
	step "The Finder's view of the tree, mounted"; \
	mnt=$(CURDIR)/$(DEMO)/mnt; mkdir -p "$$mnt"; trap 'fusermount3 -u "$$mnt" 2>/dev/null || true' EXIT; \
	run mount Sample "$$mnt" --lang de; \
	show() { printf '\n$$ %s\n' "$$*"; (cd "$$mnt" && eval "$$@"); }; \
	show 'ls -l Applications'; \
	show 'find . -maxdepth 2 | sort'; \
	show 'tar -tvf Applications/Schach | head -n 8'; \
	show 'getfattr -d Applications/Schach'; \
	show 'ls .bundlefs/by-id/org.example.Chess .bundlefs/by-id/org.example.Chess/Resources'; \
	show 'grep -A1 CFBundleDisplayName .bundlefs/by-id/org.example.Chess/Info.plist'; \
	show 'file .bundlefs/by-id/org.example.Chess/Icon.png .bundlefs/by-id/org.example.Terminal/Icon.png .bundlefs/by-path/Documents/Plan.pkgdoc/Icon.png'; \
	show 'ls Applications/Chess.app/Contents'; \
	show 'ls .bundlefs/by-uuid .bundlefs/by-uuid/48F282DE-1BD5-F162-67A9-DA7D51476FD4'; \
	printf '\n$$ fusermount3 -u %s\n' "$$mnt"

# Regenerates Docs/bundlefs.1 from the commands' own help (swift-argument-parser's plugin); a
# test checks that it covers every command and option.
man:
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --configuration debug --authors "the bundlefs developers"
	cp .build/plugins/GenerateManual/outputs/bundlefs-full/bundlefs.1 Docs/bundlefs.1

# Installs for one user by default (PREFIX=~/.local): the binaries (bundlefs-full in lib/bundlefs,
# where bundlefs finds it), the systemd user units, the man page and shell completions.
# BINARY=path installs an existing build (bundlefs-full beside it) instead of building one.
PREFIX ?= $(HOME)/.local
BINARY ?=
UNITDIR = $(DESTDIR)$(PREFIX)/share/systemd/user
INSTALLED = bin/bundlefs lib/bundlefs/bundlefs-full share/man/man1/bundlefs.1 share/systemd/user/bundlefs.service share/systemd/user/bundlefs@.service \
	share/bash-completion/completions/bundlefs share/zsh/site-functions/_bundlefs share/fish/vendor_completions.d/bundlefs.fish

install:
	@[ -n "$(BINARY)" ] || $(MAKE) --no-print-directory release
	install -D -m 755 "$(or $(BINARY),.build/release/bundlefs)" "$(DESTDIR)$(PREFIX)/bin/bundlefs"
	install -D -m 755 "$(dir $(or $(BINARY),.build/release/bundlefs))bundlefs-full" "$(DESTDIR)$(PREFIX)/lib/bundlefs/bundlefs-full"
	install -D -m 644 Docs/bundlefs.1 "$(DESTDIR)$(PREFIX)/share/man/man1/bundlefs.1"
	mkdir -p "$(UNITDIR)"
	for unit in Systemd/*.service; do \
		sed 's|@BINDIR@|$(PREFIX)/bin|g' "$$unit" > "$(UNITDIR)/$$(basename "$$unit")" && chmod 644 "$(UNITDIR)/$$(basename "$$unit")"; \
	done
	mkdir -p "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	"$(DESTDIR)$(PREFIX)/bin/bundlefs" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/bundlefs"
	"$(DESTDIR)$(PREFIX)/bin/bundlefs" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_bundlefs"
	"$(DESTDIR)$(PREFIX)/bin/bundlefs" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/bundlefs.fish"
	@echo "installed in $(DESTDIR)$(PREFIX); next: write ~/.config/bundlefs/bundlefs.conf, then"
	@echo "  systemctl --user daemon-reload && systemctl --user enable --now bundlefs.service"

uninstall:
	@if [ -d "$(UNITDIR)" ] && command -v systemctl >/dev/null && [ -z "$(DESTDIR)" ] && systemctl --user is-active --quiet bundlefs.service 2>/dev/null; then \
		echo "stopping bundlefs.service"; systemctl --user disable --now bundlefs.service; fi
	for file in $(INSTALLED); do rm -f "$(DESTDIR)$(PREFIX)/$$file"; done

clean:
	rm -rf .build $(DEMO) bench-out
