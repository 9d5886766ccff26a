#!/usr/bin/env bash
# Builds the Debian package and checks it as a user would meet it: `cpack -G DEB` from the Release
# build (programs, man pages from help2man, desktop entry, icon, MIME types, AppStream metainfo,
# bash completion, docs), validates the desktop entry and the metainfo, runs lintian (its output
# is kept in build/lintian.txt; docs/user/install.md explains each remaining tag), installs the
# package with apt-get, and runs the installed programs: `rbmscope-cli exact four-mode`,
# `rbmscope-cli --version`, `rbmscope --version` and `rbmscope --help` without a display, the
# app offscreen on a preset, and `import rbmscope` in python3 when the build has the module.
# scripts/test.sh runs it as its "package" phase.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" dpkg-dev help2man desktop-file-utils appstream lintian file
build=$root/build
"$root/scripts/build.sh" --target rbmscope --target rbmscope-cli
cmake --build "$build" --target man rbmscope_changelog
# The Python module, when this build has it (RBMSCOPE_PYTHON): `cmake --install` puts it in dist-packages.
python_module=0
targets=$(ninja -C "$build" -t targets all 2>/dev/null)  # not piped into grep -q: pipefail and SIGPIPE
if grep -q '^rbmscope_python:' <<<"$targets"; then
  python_module=1
  cmake --build "$build" --target rbmscope_python
fi
rm -f "$build"/rbmscope_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/rbmscope_*.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb -I "$deb" | sed -n 's/^ \(Depends\|Version\|Installed-Size\):/  \1:/p'

desktop-file-validate "$root/resources/desktop/io.github.rbmscope.rbmscope.desktop"
appstreamcli validate --no-net --pedantic "$root/resources/desktop/io.github.rbmscope.rbmscope.metainfo.xml"
# lintian: every tag it still reports is explained in docs/user/install.md; an error fails.
lintian --tag-display-limit 0 "$deb" >"$build/lintian.txt" 2>&1 || true
cat "$build/lintian.txt"
if grep -q '^E:' "$build/lintian.txt"; then echo "package: lintian reports errors" >&2; exit 1; fi

export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$deb" >/dev/null
cd "$(mktemp -d)"
/usr/bin/rbmscope-cli exact four-mode | grep -q '"log_z"'
/usr/bin/rbmscope-cli --version
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM /usr/bin/rbmscope --version
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM /usr/bin/rbmscope --help | grep -q -- '--preset'
QT_QPA_PLATFORM=offscreen /usr/bin/rbmscope --preset two-gaussians --screenshot "$PWD/installed.png" --timeout 60
test -s installed.png
test -f /usr/share/applications/io.github.rbmscope.rbmscope.desktop
test -f /usr/share/man/man1/rbmscope-cli.1.gz && test -f /usr/share/man/man1/rbmscope.1.gz
test -f /usr/share/bash-completion/completions/rbmscope-cli
if [ "$python_module" = 1 ]; then  # Debian's python3 finds the installed package (docs/user/python.md)
  /usr/bin/python3 -c "import rbmscope; print('package: python3 imports rbmscope, four-mode log_z', rbmscope.exact(rbmscope.preset('four-mode'))['log_z'])"
fi
echo "package: installed and ran $(dpkg-query -W -f='${Package} ${Version}' rbmscope)"
