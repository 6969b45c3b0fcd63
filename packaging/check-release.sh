#!/usr/bin/env bash
# packaging/check-release.sh [VERSION] builds a release (make release, with
# VERSION 0.0.0-ci unless given) and checks what it wrote to dist/:
#   - SHA256SUMS matches, and lists the four files;
#   - each tarball holds exactly its files, and its binary (arm64 under
#     qemu-user) prints the version;
#   - the documents each tarball and package ship give commands that work
#     there (check-docs.sh): the README opens with `bankmirror demo`, and
#     none says `go run` or `go test` outside a part marked for the source;
#     the README has no "Project structure" or "Development" section, and
#     every link in it reaches a file that ships (the package's changelog
#     as /usr/share/doc/bankmirror/changelog.gz);
#   - each package's control fields, maintainer scripts and paths, and that
#     its postrm says, on purge, what stays (/var/lib/bankmirror, the
#     webhooks at the bank and how to delete them);
#   - the amd64 package, extracted: its copyright file names every module
#     the binary was built with (go version -m), its man page is gzipped roff,
#     its sysusers and tmpfiles entries create the user, /etc/bankmirror and
#     /var/lib/bankmirror (0700, owned by the user) in a scratch root, and its
#     unit passes systemd-analyze verify without a warning and rates 1.0 or
#     better in systemd-analyze security.
# .ci/run runs it; it runs as well by hand (it needs qemu-user-static,
# dpkg-deb, systemd-analyze and the cross compiler, and root for the
# sysusers and tmpfiles check, which runs on a scratch root only).
set -euo pipefail
# A pipe into grep reads all of its input (grep -c, not grep -q): grep -q
# stops at the first match, and the writer then dies of SIGPIPE, which
# pipefail turns into a failure whenever the writer had more to write.
cd "$(dirname "$0")/.."
start=$SECONDS

version=${1:-0.0.0-ci}
debversion=${version/-/\~} # nfpm writes a pre-release as 1.2.3~rc1, which sorts before 1.2.3

fail() {
	echo "check-release: $*" >&2
	exit 1
}
need() { # COMMAND PACKAGE
	command -v "$1" >/dev/null || fail "needs $1: apt-get install $2"
}
need qemu-aarch64-static qemu-user-static
need dpkg-deb dpkg
need systemd-analyze systemd
need readelf binutils

make release VERSION="$version"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "check-release: checksums"
files=("bankmirror_${version}_linux_amd64.tar.gz" "bankmirror_${version}_linux_arm64.tar.gz"
	"bankmirror_${version}_amd64.deb" "bankmirror_${version}_arm64.deb")
(cd dist && sha256sum --check --strict --quiet SHA256SUMS) || fail "dist/SHA256SUMS does not match"
diff <(printf '%s\n' "${files[@]}" | sort) <(awk '{print $2}' dist/SHA256SUMS | sort) ||
	fail "dist/SHA256SUMS does not list exactly the four files"

# run ARCH BINARY ARGS...: runs a binary of either architecture.
run() {
	local arch=$1 bin=$2
	shift 2
	case $arch in
	amd64) "$bin" "$@" ;;
	arm64) qemu-aarch64-static -L /usr/aarch64-linux-gnu "$bin" "$@" ;;
	esac
}
machine() { # ARCH: what readelf calls it
	case $1 in amd64) echo "X86-64" ;; arm64) echo "AArch64" ;; esac
}
# check_docs WHERE README DOC...: the shipped README opens with the installed
# program's demo, and no shipped document needs the source (check-docs.sh).
check_docs() {
	local where=$1 readme=$2
	shift 2
	first=$(grep -m 1 -A 1 '^```sh$' "$readme" | tail -n 1)
	[[ $first == "bankmirror demo "* ]] || fail "$where: the README's first command is not \`bankmirror demo\`: $first"
	packaging/check-docs.sh "$readme" "$@" || fail "$where ships documents whose commands need the source"
}
# check_readme WHERE README BASE ROOT: the shipped README has no sections
# for the source's developers, and every link it holds reaches a file that
# ships: relative to BASE (where it is installed), or under ROOT for an
# absolute path (the package's /usr/share/doc/bankmirror/changelog.gz).
check_readme() {
	local where=$1 readme=$2 base=$3 root=$4 target missing=""
	for section in "## Project structure" "## Development"; do
		grep -qxF "$section" "$readme" && fail "$where: the README keeps its \"$section\" section"
	done
	grep -q '^Licence: ' "$readme" || fail "$where: the README lost its licence line"
	while read -r target; do
		target=${target%%#*}
		[ -n "$target" ] || continue
		case $target in
		http://* | https://* | mailto:*) continue ;;
		/*) [ -e "$root$target" ] || missing+=" $target" ;;
		*) [ -e "$base/$target" ] || missing+=" $target" ;;
		esac
	done < <(grep -o '](\([^)]*\))' "$readme" | sed 's/^](\(.*\))$/\1/')
	[ -z "$missing" ] || fail "$where: the README links what does not ship:$missing"
}
check_binary() { # ARCH BINARY
	readelf -h "$2" | grep -c "Machine:.*$(machine "$1")" >/dev/null || fail "$2 is not a $1 binary"
	out=$(run "$1" "$2" version) || fail "$2 version (linux/$1) failed"
	grep -qF "$version" <<<"$out" || fail "$2 version (linux/$1) printed no $version: $out"
	echo "  linux/$1: $(head -n 1 <<<"$out")"
}

# The documents' check fails where it should: a page saying `go run`
# outside a part for the source.
printf '# Use\n\nRun `go run ./cmd/bankmirror demo`.\n\n## From source\n\n`go test ./...`\n' >"$scratch/bad.md"
if packaging/check-docs.sh "$scratch/bad.md" 2>/dev/null; then
	fail "check-docs.sh passes a page that says go run outside a part for the source"
fi
printf '# Use\n\nRun `bankmirror demo`.\n\n## From source\n\n`go test ./...`\n' >"$scratch/good.md"
packaging/check-docs.sh "$scratch/good.md" || fail "check-docs.sh refuses go test in a part for the source"

echo "check-release: tarballs"
for arch in amd64 arm64; do
	name="bankmirror_${version}_linux_$arch"
	want=$(printf "$name/%s\n" "" CHANGELOG.md LICENSE README.md bankmirror bankmirror.1 bankmirror.env.example bankmirror.service bankmirror-feeds.service \
		completions/ completions/_bankmirror completions/bankmirror.bash completions/bankmirror.fish \
		docs/ docs/control-openapi.yaml docs/schema.sql $(cd docs && ls -- *.md *.png | sed 's|^|docs/|'))
	diff <(sort <<<"$want") <(tar -tzf "dist/$name.tar.gz" | sort) || fail "$name.tar.gz holds other files than these"
	tar -xzf "dist/$name.tar.gz" -C "$scratch"
	check_binary "$arch" "$scratch/$name/bankmirror"
	cmp -s "$scratch/$name/bankmirror.service" systemd/bankmirror.service || fail "$name.tar.gz's unit is not systemd/bankmirror.service"
	check_docs "$name.tar.gz" "$scratch/$name/README.md" "$scratch/$name/CHANGELOG.md" "$scratch/$name"/docs/*.md
	check_readme "$name.tar.gz" "$scratch/$name/README.md" "$scratch/$name" "$scratch/$name"
	cmp -s "$scratch/$name/docs/control-openapi.yaml" internal/simulator/control-openapi.yaml ||
		fail "$name.tar.gz's docs/control-openapi.yaml is not the simulator's"
	cmp -s "$scratch/$name/bankmirror.env.example" packaging/bankmirror.env.example || fail "$name.tar.gz's example environment file is not packaging/bankmirror.env.example"
done

echo "check-release: packages"
paths=(
	"-rwxr-xr-x root/root ./usr/bin/bankmirror"
	"-rw-r--r-- root/root ./usr/lib/systemd/system/bankmirror-feeds.service"
	"-rw-r--r-- root/root ./usr/lib/systemd/system/bankmirror.service"
	"-rw-r--r-- root/root ./usr/lib/sysusers.d/bankmirror.conf"
	"-rw-r--r-- root/root ./usr/lib/tmpfiles.d/bankmirror.conf"
	"-rw-r--r-- root/root ./usr/share/bash-completion/completions/bankmirror"
	"-rw-r--r-- root/root ./usr/share/zsh/vendor-completions/_bankmirror"
	"-rw-r--r-- root/root ./usr/share/fish/vendor_completions.d/bankmirror.fish"
	"-rw-r--r-- root/root ./usr/share/man/man1/bankmirror.1.gz"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/copyright"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/changelog.gz"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/README.md.gz"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/bankmirror.env.example"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/docs/design.md"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/docs/dashboard.png"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/docs/control-openapi.yaml"
	"-rw-r--r-- root/root ./usr/share/doc/bankmirror/docs/schema.sql"
)
for arch in amd64 arm64; do
	deb="dist/bankmirror_${version}_$arch.deb"
	info=$(dpkg-deb --info "$deb")
	for field in "Package: bankmirror" "Version: $debversion" "Architecture: $arch" "Depends: libc6 (>= 2."; do
		grep -qF " $field" <<<"$info" || fail "$deb: no \"$field\" in its control file"
	done
	for script in postinst prerm postrm; do
		grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\* +$script " <<<"$info" || fail "$deb: no executable $script"
	done
	contents=$(dpkg-deb --contents "$deb" | awk '{print $1, $2, $6}')
	for p in "${paths[@]}"; do
		grep -qxF -e "$p" <<<"$contents" || fail "$deb lacks $p"
	done
	grep -q ' \./etc/' <<<"$contents" && fail "$deb ships /etc: /etc/bankmirror is made by tmpfiles.d"
	mkdir -p "$scratch/$arch"
	dpkg-deb --extract "$deb" "$scratch/$arch"
	dpkg-deb --control "$deb" "$scratch/$arch/DEBIAN"
	for script in postinst prerm postrm; do
		sh -n "$scratch/$arch/DEBIAN/$script" || fail "$deb: $script is not valid sh"
	done
	# Purging says what stays and how to delete the webhooks at the bank.
	for says in "What stays:" "/var/lib/bankmirror: the mirror" "rm -r /var/lib/bankmirror" "any webhook registered at the bank" "bankmirror webhook"; do
		sed -n '/^purge)/,/;;/p' "$scratch/$arch/DEBIAN/postrm" | grep -cF -e "$says" >/dev/null || fail "$deb: postrm purge does not say \"$says\""
	done
	check_binary "$arch" "$scratch/$arch/usr/bin/bankmirror"
done

echo "check-release: the amd64 package's files"
root="$scratch/amd64"
grep -qx 'ExecStart=/usr/bin/bankmirror serve' "$root/usr/lib/systemd/system/bankmirror.service" ||
	fail "the package's unit does not start /usr/bin/bankmirror"
# Every module compiled in has its licence in the copyright file.
deps=$(go version -m "$root/usr/bin/bankmirror" | awk '$1 == "dep" || $1 == "=>" {print $2, $3}')
[ -n "$deps" ] || fail "go version -m lists no modules in the packaged binary"
while read -r mod ver; do
	grep -qE "^  $mod $ver +[A-Za-z]" "$root/usr/share/doc/bankmirror/copyright" || fail "copyright lacks $mod $ver"
done <<<"$deps"
echo "  copyright: $(wc -l <<<"$deps") modules and the Go standard library"
gzip -dc "$root/usr/share/man/man1/bankmirror.1.gz" | grep -c '^\.TH ' >/dev/null || fail "the man page is not gzipped roff"
gzip -dc "$root/usr/share/doc/bankmirror/README.md.gz" >"$scratch/README.deb.md"
gzip -dc "$root/usr/share/doc/bankmirror/changelog.gz" >"$scratch/CHANGELOG.deb.md"
check_docs "the amd64 package" "$scratch/README.deb.md" "$scratch/CHANGELOG.deb.md" "$root"/usr/share/doc/bankmirror/docs/*.md
check_readme "the amd64 package" "$scratch/README.deb.md" "$root/usr/share/doc/bankmirror" "$root"
grep -qF '](/usr/share/doc/bankmirror/changelog.gz)' "$scratch/README.deb.md" ||
	fail "the amd64 package's README does not link /usr/share/doc/bankmirror/changelog.gz"
gzip -dc "$root/usr/share/man/man1/bankmirror.1.gz" | grep -cF '/usr/share/doc/bankmirror' >/dev/null ||
	fail "the man page does not point at /usr/share/doc/bankmirror"
echo "  documents: commands for the installed program"

# What postinst does (systemd-sysusers, systemd-tmpfiles), into a scratch root.
mkdir -p "$root/etc"
systemd-sysusers --root="$root" bankmirror.conf >/dev/null 2>&1 || fail "systemd-sysusers bankmirror.conf failed"
uid=$(awk -F: '$1 == "bankmirror" {print $3}' "$root/etc/passwd")
[ -n "$uid" ] || fail "sysusers.d made no user bankmirror"
systemd-tmpfiles --root="$root" --create bankmirror.conf || fail "systemd-tmpfiles --create bankmirror.conf failed"
# Both directories, without systemd starting the service (a container, WSL).
for d in /etc/bankmirror /var/lib/bankmirror; do
	[ "$(stat -c '%a %u' "$root$d" 2>&1)" = "700 $uid" ] ||
		fail "$d is $(stat -c '%a %u' "$root$d" 2>&1), want 700 $uid (bankmirror)"
done
echo "  sysusers and tmpfiles: user bankmirror, /etc/bankmirror and /var/lib/bankmirror 0700 bankmirror"

# The unit, in the extracted tree plus the two things of a base system it
# names: sysinit.target (default dependencies) and /bin/kill (ExecReload).
for unitdir in /usr/lib/systemd/system /lib/systemd/system; do
	[ -f "$unitdir/sysinit.target" ] && break
done
cp "$unitdir/sysinit.target" "$root/usr/lib/systemd/system/" || fail "no sysinit.target: apt-get install systemd"
mkdir -p "$root/bin"
cp /bin/kill "$root/bin/kill" || fail "no /bin/kill: apt-get install procps"
# Not a warning, with the systemd that runs this (Debian 12's 252 in CI; the
# oldest the package supports is Ubuntu 22.04's 249): a key newer systemd
# knows goes in the unit's comments, not its settings.
out=$(systemd-analyze verify --root="$root" bankmirror.service 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify warns: $out"
score=$(systemd-analyze security --offline=true --root="$root" bankmirror.service 2>/dev/null | grep -o 'Overall exposure level for bankmirror.service: [0-9.]*' | awk '{print $NF}')
systemd-analyze security --offline=true --threshold=10 --root="$root" bankmirror.service >/dev/null 2>&1 ||
	fail "systemd-analyze security rates the unit $score, above 1.0"
echo "  unit: systemd-analyze verify clean ($(systemd-analyze --version | head -n 1)), security $score"

echo "check-release: all checks passed in $((SECONDS - start)) s"
