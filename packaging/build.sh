#!/usr/bin/env bash
# Build the one-folder Linux bundle of Sudoku Studio with PyInstaller.
#
#   pip install -e '.[package]'     # PyInstaller
#   bash packaging/build.sh
#
# Result: dist/sudokustudio/ (run dist/sudokustudio/sudokustudio), with
# share/applications/sudokustudio.desktop and share/icons/hicolor/... inside;
# packaging/install-desktop-entry.sh adds it to the desktop menu.
# Environment: PYTHON (default python3), DIST_DIR (default dist), WORK_DIR
# (default build/pyinstaller).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
PYTHON="${PYTHON:-python3}"
DIST_DIR="${DIST_DIR:-$REPO/dist}"
WORK_DIR="${WORK_DIR:-$REPO/build/pyinstaller}"

if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: PyInstaller is not installed: pip install 'sudokustudio[package]'" >&2
    exit 1
fi

start=$(date +%s)
cd "$REPO"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST_DIR" --workpath "$WORK_DIR" "$HERE/sudokustudio.spec"

APP="$DIST_DIR/sudokustudio"
mkdir -p "$APP/share/applications" "$APP/share/icons/hicolor/scalable/apps"
cp "$HERE/sudokustudio.desktop" "$APP/share/applications/"
cp -r "$HERE/icons/hicolor" "$APP/share/icons/"
cp "$REPO/resources/icons/sudokustudio.svg" "$APP/share/icons/hicolor/scalable/apps/"
cp "$HERE/install-desktop-entry.sh" "$APP/"

end=$(date +%s)
echo "built $APP in $((end - start)) s; size $(du -sh "$APP" | cut -f1)"
echo "run it: $APP/sudokustudio    add it to the menu: $APP/install-desktop-entry.sh"
