"""The page's number formats (``web/static/format.js``), run in node: a rate or an axis's
end to 3 significant digits, written as the page's other figures are."""

import json
import subprocess
from pathlib import Path

FORMAT = Path(__file__).resolve().parents[1] / "src" / "micrograd" / "web" / "static" / "format.js"


def run(expr):
    code = (f"import('{FORMAT.as_uri()}').then((m) => "
            f"console.log(JSON.stringify({expr})))")
    out = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60,
                         check=True)
    return json.loads(out.stdout)


def test_fmt_short_keeps_three_digits_and_the_missing_marks():
    got = run("[15.3456, 3.5217, 1234.5, 0.000012345, 0, -2.71828, null, 'NaN']"
              ".map((x) => m.fmtShort(x))")
    assert got == ["15.3", "3.52", "1230", "1.2300e-5", "0", "-2.72", "·", "NaN"]
