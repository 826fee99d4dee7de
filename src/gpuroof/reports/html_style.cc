#include "gpuroof/reports/html_style.h"

namespace gpuroof {

std::string_view HtmlStyleSheet() {
  // Colours: a colour-blind-safe palette (Okabe-Ito) for the engines; the bottleneck is outlined
  // rather than recoloured so an engine keeps one colour everywhere on the page.
  return R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f23;
  margin:24px auto;max-width:1180px;padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #d0d7de}
h3{font-size:14px;margin:18px 0 6px}
.meta,.explain{color:#57606a;margin:4px 0 8px}.note{color:#9a6700}.warn{color:#cf222e;font-weight:600}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.name,td.path{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.pair{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.figure{overflow-x:auto;margin:6px 0}
ul.readings{padding-left:18px}ul.readings li{margin:4px 0}
ul.readings .label{font-weight:600;margin-right:8px}
ul.readings .path{color:#57606a;font-family:ui-monospace,monospace;margin-right:8px}
ul.readings .reading{display:block}ul.readings .figures{display:block;color:#57606a}
svg text{font:11px system-ui,sans-serif;fill:#1b1f23}
svg .tick,svg .axis-label{fill:#57606a}svg .grid{stroke:#eaeef2}svg .axis{stroke:#57606a}
svg .bar{stroke:#1b1f23;stroke-width:.5}svg .bottleneck{stroke:#cf222e;stroke-width:2.5}
svg .mark{fill:#cf222e;font-weight:600}svg .headroom{fill:#1a7f37}svg .value{font-weight:600}
svg .roofline{stroke:#cf222e;stroke-width:1.5;stroke-dasharray:6 3}
svg .roofline-label{fill:#cf222e}svg .group-label{font-weight:600}
svg .lane{fill:#f6f8fa}svg .lane-name{fill:#57606a}
svg .outside{fill:#57606a;fill-opacity:.18}
svg .gap{fill:#cf222e;fill-opacity:.35;stroke:#cf222e;stroke-width:.5}
svg .window{stroke:#0550ae;stroke-width:1.5;stroke-dasharray:4 2}svg .window-label{fill:#0550ae}
svg .steady{stroke:#1a7f37;stroke-width:1.5;stroke-dasharray:2 2}svg .steady-label{fill:#1a7f37}
.e-kernel{fill:#0072b2}.e-comm{fill:#1b3a6b}.e-H2D{fill:#e69f00}.e-D2H{fill:#009e73}.e-D2D{fill:#cc79a7}
.e-P2P{fill:#56b4e9}.e-H2H{fill:#f0e442}.e-memset{fill:#999999}.e-UVM_H2D{fill:#d55e00}
.e-UVM_D2H{fill:#8c564b}.e-UVM_D2D{fill:#bcbd22}.e-graph{fill:#7f7f7f}
.status{font-size:16px;font-weight:600;padding:8px 12px;border-radius:6px;margin:10px 0}
.status.pass{background:#dafbe1;color:#1a7f37}.status.warn{background:#fff8c5;color:#9a6700}
.status.fail{background:#ffebe9;color:#cf222e}
tr.v-regressed td{background:#fff5f5}tr.v-improved td{background:#f3fff5}
svg .floor{fill:#eaeef2}svg .zero{stroke:#57606a;stroke-width:1}
svg .ci{stroke-width:2}svg .v-regressed{stroke:#cf222e;fill:#cf222e}
svg .v-improved{stroke:#1a7f37;fill:#1a7f37}svg .v-other{stroke:#57606a;fill:#57606a}
svg .clipped{font-weight:600}
)css";
}

void BeginHtmlPage(HtmlWriter& html, std::string_view title) {
  html.Raw("<!DOCTYPE html>\n");
  html.Open("html", {{"lang", "en"}}).Open("head");
  html.Raw("<meta charset=\"utf-8\">");
  html.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  html.Element("title", title);
  html.Open("style").Raw(HtmlStyleSheet()).Close("style");
  html.Close("head").Open("body");
}

std::string EndHtmlPage(HtmlWriter& html) {
  html.Close("body").Close("html");
  return html.Finish() + "\n";
}

}  // namespace gpuroof
