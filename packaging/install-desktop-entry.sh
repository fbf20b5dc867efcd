#!/usr/bin/env bash
# Add a built Sudoku Studio bundle to the current user's desktop menu:
# the .desktop file goes to ~/.local/share/applications (Exec = this bundle's
# executable) and the icons to ~/.local/share/icons/hicolor; then the numba
# kernels are compiled into the user's cache (~/.cache/sudokustudio/numba,
# `sudokustudio --warm`, a few minutes once) so the first start is quick.
# NO_WARM=1 skips that step (the app then compiles in the background).
#
#   dist/sudokustudio/install-desktop-entry.sh [BUNDLE_DIR]
set -euo pipefail

BUNDLE="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")}" && pwd)"
if [[ ! -x "$BUNDLE/sudokustudio" ]]; then
    echo "install-desktop-entry.sh: no executable $BUNDLE/sudokustudio (build with packaging/build.sh)" >&2
    exit 1
fi
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$DATA/applications" "$DATA/icons"
cp -r "$BUNDLE/share/icons/hicolor" "$DATA/icons/"
sed -e "s|^Exec=.*|Exec=\"$BUNDLE/sudokustudio\"|" -e "s|^TryExec=.*|TryExec=$BUNDLE/sudokustudio|" \
    "$BUNDLE/share/applications/sudokustudio.desktop" > "$DATA/applications/sudokustudio.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q "$DATA/icons/hicolor" || true
echo "installed $DATA/applications/sudokustudio.desktop"
if [[ -z "${NO_WARM:-}" ]]; then
    echo "compiling the kernels into the cache (once; NO_WARM=1 skips this)"
    "$BUNDLE/sudokustudio" --warm || echo "kernel warm-up failed: the app will compile them in the background" >&2
fi
