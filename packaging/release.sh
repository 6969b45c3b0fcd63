#!/usr/bin/env bash
# packaging/release.sh VERSION (what `make release VERSION=X.Y.Z` runs) builds
# a release into dist/, emptied first:
#
#   bankmirror_VERSION_linux_amd64.tar.gz  bankmirror_VERSION_linux_arm64.tar.gz
#   bankmirror_VERSION_amd64.deb           bankmirror_VERSION_arm64.deb
#   SHA256SUMS
#
# Both binaries are cgo builds (SQLite): the one for the machine's own
# architecture with gcc, the other with Debian's cross compiler
# (gcc-aarch64-linux-gnu, or gcc-x86-64-linux-gnu on an arm64 machine).
# Completions and the man page come from the native binary. Everything is
# stamped with the commit's time, not the clock's, so that a rebuild of the
# same commit with the same toolchain gives the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

version=${1:-}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
	echo "release: give the version as X.Y.Z or X.Y.Z-pre (make release VERSION=1.2.3), not \"$version\"" >&2
	exit 2
fi

arches=(amd64 arm64)
hostarch=$(go env GOHOSTARCH)

# cc ARCH: the C compiler for ARCH, and the Debian package that has it.
cc() {
	if [ "$1" = "$hostarch" ]; then
		echo "${CC:-gcc} gcc"
		return
	fi
	case $1 in
	amd64) echo "x86_64-linux-gnu-gcc gcc-x86-64-linux-gnu" ;;
	arm64) echo "aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu" ;;
	esac
}
for arch in "${arches[@]}"; do
	read -r compiler package < <(cc "$arch")
	if ! command -v "$compiler" >/dev/null; then
		echo "release: the $arch build needs the C compiler $compiler: apt-get install $package" >&2
		exit 1
	fi
done

commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "release: warning: the work tree has uncommitted changes; the binaries will still say commit $commit" >&2
fi
# The commit's time stamps the binaries (buildinfo.Date), the packages'
# files (nfpm reads SOURCE_DATE_EPOCH) and the tarballs.
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git show -s --format=%ct HEAD)
date=$(TZ=UTC git show -s --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf dist
mkdir -p dist

echo "release: nfpm v2.45.2"
GOBIN="$work/bin" go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

pkg=github.com/bankmirror/bankmirror/internal/buildinfo
# -s -w: no symbol table or DWARF (stack traces keep their function names);
# PIE and -z now (full RELRO): the hardening Debian gives its own daemons.
ldflags="-s -w -extldflags=-Wl,-z,now -X $pkg.Version=$version -X $pkg.Commit=$commit -X $pkg.Date=$date"
for arch in "${arches[@]}"; do
	read -r compiler _ < <(cc "$arch")
	echo "release: building linux/$arch with $compiler"
	mkdir -p "$work/$arch"
	CGO_ENABLED=1 GOOS=linux GOARCH="$arch" CC="$compiler" \
		go build -tags sqlite_fts5 -trimpath -buildmode=pie -ldflags "$ldflags" -o "$work/$arch/bankmirror" ./cmd/bankmirror
done

# Completions and the man page, from the binary that runs here.
gen="$work/gen"
mkdir -p "$gen"
native="$work/$hostarch/bankmirror"
for shell in bash zsh fish; do
	if ! "$native" completion "$shell" >"$gen/completion.$shell"; then
		echo "release: \`bankmirror completion $shell\` failed" >&2
		exit 1
	fi
done
if ! "$native" man >"$gen/bankmirror.1"; then
	echo "release: \`bankmirror man\` failed" >&2
	exit 1
fi
# The README that ships opens with the installed program's commands: its
# from-source start, between the markers, becomes packaging/readme-start.md.
# The sections for those who work on the source ("Project structure",
# "Development") are cut; the licence line that ends "Development" ends it.
# Links reach what ships: the simulator's control API spec is installed
# beside the manual (docs/control-openapi.yaml), the conformance suite is
# on the project's page.
awk -v start=packaging/readme-start.md '
	/^<!-- from source/ { while ((getline l <start) > 0) print l; skip = 1; next }
	/^<!-- end from source -->$/ { skip = 0; next }
	/^## / { cut = ($0 == "## Project structure" || $0 == "## Development") }
	!skip && !cut
' README.md | sed -e 's#](internal/simulator/control-openapi\.yaml)#](docs/control-openapi.yaml)#g' \
	-e 's#](conformance)#](https://github.com/bankmirror/bankmirror/tree/main/conformance)#g' >"$gen/README.md"
if ! grep -q '^<!-- from source' README.md || grep -q '^<!-- \(end \)\?from source' "$gen/README.md"; then
	echo "release: README.md has no <!-- from source ... --> ... <!-- end from source --> start to replace for the released README" >&2
	exit 1
fi
for section in "## Project structure" "## Development"; do
	grep -qxF "$section" README.md || {
		echo "release: README.md has no \"$section\" section to cut from the released README: update $0" >&2
		exit 1
	}
done
sed -i -e '${/^$/d}' "$gen/README.md"
printf '\nLicence: Apache-2.0 ([LICENSE](LICENSE)).\n' >>"$gen/README.md"
# The package installs the changelog as changelog.gz (Debian policy) and
# the licence as copyright: its README links those.
sed -e 's#\[CHANGELOG\.md\](CHANGELOG\.md)#[the changelog](/usr/share/doc/bankmirror/changelog.gz)#g' \
	-e 's#](CHANGELOG\.md)#](/usr/share/doc/bankmirror/changelog.gz)#g' \
	-e 's#^Licence: Apache-2.0 (\[LICENSE\](LICENSE))\.$#Licence: Apache-2.0 ([copyright](/usr/share/doc/bankmirror/copyright)).#' \
	"$gen/README.md" >"$gen/README.deb.md"
# The manual's pages as they ship: their links to the control API spec
# and to the schema point at the installed copies beside them, the
# migrations at the project's page.
mkdir -p "$gen/docs"
for f in docs/*.md; do
	sed -e 's#](\.\./internal/simulator/control-openapi\.yaml)#](control-openapi.yaml)#g' \
		-e 's#](\.\./schema\.sql)#](schema.sql)#g' \
		-e 's#](\.\./internal/store/migrations)#](https://github.com/bankmirror/bankmirror/tree/main/internal/store/migrations)#g' "$f" >"$gen/$f"
done
install -m 0644 docs/*.png internal/simulator/control-openapi.yaml schema.sql "$gen/docs/"
# The package's unit runs the packaged binary; the tarball's keeps
# /usr/local/bin, where a binary installed by hand belongs.
sed 's#^ExecStart=/usr/local/bin/bankmirror #ExecStart=/usr/bin/bankmirror #' systemd/bankmirror.service >"$gen/bankmirror.service.deb"
grep -q '^ExecStart=/usr/bin/bankmirror ' "$gen/bankmirror.service.deb" || {
	echo "release: systemd/bankmirror.service no longer starts /usr/local/bin/bankmirror: update the rewrite in $0" >&2
	exit 1
}
sed 's#/usr/local/bin/bankmirror #/usr/bin/bankmirror #' systemd/bankmirror-feeds.service >"$gen/bankmirror-feeds.service.deb"
grep -q '^ExecStart=/usr/bin/bankmirror ' "$gen/bankmirror-feeds.service.deb" || {
	echo "release: systemd/bankmirror-feeds.service no longer starts /usr/local/bin/bankmirror: update the rewrite in $0" >&2
	exit 1
}

# glibc ARCH: the newest glibc symbol version the binary of ARCH needs.
glibc() {
	readelf --dyn-syms --wide "$work/$1/bankmirror" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n 1 | sed 's/^GLIBC_//'
}

tarball() { # ARCH
	local name="bankmirror_${version}_linux_$1"
	local dir="$work/tar/$name"
	mkdir -p "$dir/completions" "$dir/docs"
	install -m 0755 "$work/$1/bankmirror" "$dir/bankmirror"
	install -m 0644 LICENSE CHANGELOG.md systemd/bankmirror.service systemd/bankmirror-feeds.service "$gen/README.md" "$gen/bankmirror.1" packaging/bankmirror.env.example "$dir/"
	install -m 0644 "$gen"/docs/* "$dir/docs/"
	install -m 0644 "$gen/completion.bash" "$dir/completions/bankmirror.bash"
	install -m 0644 "$gen/completion.zsh" "$dir/completions/_bankmirror"
	install -m 0644 "$gen/completion.fish" "$dir/completions/bankmirror.fish"
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		--format=gnu -C "$work/tar" -cf - "$name" | gzip -9 -n >"dist/$name.tar.gz"
}

deb() { # ARCH
	local stage="$work/stage-$1"
	mkdir -p "$stage"
	install -m 0755 "$work/$1/bankmirror" "$stage/bankmirror"
	install -m 0644 "$gen/bankmirror.service.deb" "$stage/bankmirror.service"
	install -m 0644 "$gen/bankmirror-feeds.service.deb" "$stage/bankmirror-feeds.service"
	install -m 0644 "$gen/completion.bash" "$stage/bankmirror.bash"
	install -m 0644 "$gen/completion.zsh" "$stage/_bankmirror"
	install -m 0644 "$gen/completion.fish" "$stage/bankmirror.fish"
	gzip -9 -n <"$gen/bankmirror.1" >"$stage/bankmirror.1.gz"
	gzip -9 -n <CHANGELOG.md >"$stage/changelog.gz"
	gzip -9 -n <"$gen/README.deb.md" >"$stage/README.md.gz"
	mkdir -p "$stage/docs"
	install -m 0644 "$gen"/docs/* "$stage/docs/"
	go run ./internal/tools/copyright -binary "$stage/bankmirror" \
		-modcache "$(go env GOMODCACHE)" -goroot "$(go env GOROOT)" >"$stage/copyright"
	STAGE="$stage" VERSION="$version" ARCH="$1" GLIBC_MIN="$(glibc "$1")" \
		"$work/bin/nfpm" package --config packaging/nfpm.yaml --packager deb \
		--target "dist/bankmirror_${version}_$1.deb" >/dev/null
}

for arch in "${arches[@]}"; do
	echo "release: packaging linux/$arch (needs glibc $(glibc "$arch") or newer)"
	tarball "$arch"
	deb "$arch"
done

(cd dist && sha256sum -- *.tar.gz *.deb >SHA256SUMS)
echo "release: dist/ holds bankmirror $version (commit ${commit:0:12}, $date):"
(cd dist && ls -l -- *.tar.gz *.deb SHA256SUMS | awk '{printf "  %-40s %10d bytes\n", $NF, $5}')
