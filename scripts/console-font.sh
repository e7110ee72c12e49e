#!/usr/bin/env bash
# Regenerates the console's Japanese font: crates/kura-console/src/assets/kura-jp.woff2,
# the characters the console shows in Japanese (the design guideline's section names in
# the advisor's findings, and any other Japanese text of the console or the advisor),
# subset from Noto Sans CJK JP (SIL Open Font License 1.1), so they render on a machine
# without a CJK font. kura-jp.chars lists what it covers; a unit test of kura-console
# fails when a new Japanese character is not in it: then run this script.
#
# Needs Debian's fonts-noto-cjk (installed here if missing) and fontTools with brotli
# (installed into a venv of its own). Not run by the test command.
set -euo pipefail
cd "$(dirname "$0")/.."

source_font=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
if [ ! -f "$source_font" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk
fi
venv=target/console-font-venv
[ -x "$venv/bin/pyftsubset" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q fonttools brotli; }

# Every character from the CJK blocks onward in the advisor's and the console's sources.
chars=$(python3 - <<'PY'
import glob
chars = set()
for path in glob.glob("crates/kura-advisor/src/**/*.rs", recursive=True) + \
        glob.glob("crates/kura-console/src/**/*.rs", recursive=True):
    chars.update(c for c in open(path, encoding="utf-8").read() if ord(c) >= 0x2E80)
print("".join(sorted(chars)), end="")
PY
)
assets=crates/kura-console/src/assets
# Face 0 of the collection is Noto Sans CJK JP.
"$venv/bin/pyftsubset" "$source_font" --font-number=0 --text="$chars" \
  --flavor=woff2 --no-hinting --desubroutinize --output-file="$assets/kura-jp.woff2"
printf '%s\n' "$chars" >"$assets/kura-jp.chars"
echo "$assets/kura-jp.woff2: $(wc -c <"$assets/kura-jp.woff2") bytes, ${#chars} characters"
