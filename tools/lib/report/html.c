#include "report/html.h"

#include <stdint.h>
#include <string.h>

#include "base/unicode.h"

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Valid UTF-8 with every markup character and forbidden control replaced. */
static void escape_valid(struct buf *b, const char *s, size_t len)
{
	size_t from = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				rep = replacement;
			/* U+FFFE and U+FFFF are not characters in XML */
			else if (c == 0xEF && i + 2 < len && (unsigned char)s[i + 1] == 0xBF &&
				 ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF)) {
				buf_add(b, s + from, i - from);
				buf_adds(b, replacement);
				i += 2;
				from = i + 1;
				continue;
			}
		}
		if (rep) {
			buf_add(b, s + from, i - from);
			buf_adds(b, rep);
			from = i + 1;
		}
	}
	buf_add(b, s + from, len - from);
}

void html_text(struct buf *b, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t ok = utf8_check(s + i, len - i);
		escape_valid(b, s + i, ok);
		i += ok;
		if (i < len) {
			buf_adds(b, replacement); /* one per invalid byte */
			i++;
		}
	}
}

void html_str(struct buf *b, const char *s)
{
	if (s)
		html_text(b, s, strlen(s));
}

void html_str_cut(struct buf *b, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s), n = 0, i = 0;
	/* count lead bytes: a cut never splits a sequence */
	for (; i < len; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && n++ == max)
			break;
	}
	html_text(b, s, i);
	if (i < len)
		buf_adds(b, "…");
}

void html_href(struct buf *b, const char *path)
{
	struct buf enc = BUF_INIT;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/._~-", *p))
			buf_addc(&enc, (char)*p);
		else
			buf_printf(&enc, "%%%02X", *p);
	}
	html_text(b, enc.data, enc.len);
	buf_free(&enc);
}

static const char style[] =
	":root{--ink:#14213d;--muted:#5c6370;--line:#e3e6eb;--bg:#f4f5f8;--card:#fff;--accent:#4c78a8}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:15px/1.5 Inter,'Helvetica Neue',Helvetica,Arial,sans-serif;color:var(--ink);"
	"background:var(--bg)}\n"
	"a{color:#28427a}a:hover{color:#4c78a8}\n"
	"header.top{background:linear-gradient(120deg,#14213d 0%,#28427a 70%,#3b5998 100%);color:#fff;"
	"padding:34px 0 58px}\n"
	".wrap{max-width:1140px;margin:0 auto;padding:0 28px}\n"
	".eyebrow{text-transform:uppercase;letter-spacing:.12em;font-size:12px;opacity:.78;font-weight:600}\n"
	"header.top h1{margin:6px 0 6px;font-size:32px;line-height:1.15;font-weight:750;letter-spacing:-.01em}\n"
	"header.top .who{margin:0;font-size:15px;opacity:.9}\n"
	"header.top .who b{font-weight:650}\n"
	"main.wrap{padding-bottom:56px}\n"
	".kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(165px,1fr));gap:14px;"
	"margin:-38px 0 24px}\n"
	".kpi{background:var(--card);border-radius:12px;padding:14px 18px 15px;"
	"box-shadow:0 1px 2px rgba(20,33,61,.08),0 6px 18px rgba(20,33,61,.07)}\n"
	".kpi .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.06em;font-weight:600}\n"
	".kpi .v{font-size:27px;font-weight:750;line-height:1.2;margin-top:3px;font-variant-numeric:tabular-nums}\n"
	".kpi .s{font-size:12.5px;color:var(--muted)}\n"
	".kpi.good .v{color:#1b7f5b}.kpi.bad .v{color:#b42318}\n"
	"section.card{background:var(--card);border-radius:14px;padding:22px 26px 24px;margin:0 0 22px;"
	"box-shadow:0 1px 2px rgba(20,33,61,.06),0 4px 14px rgba(20,33,61,.05)}\n"
	"h2{font-size:19px;margin:0 0 4px;font-weight:700}\n"
	"h3{font-size:16px;margin:22px 0 8px}h4{font-size:14px;margin:18px 0 6px;color:var(--muted)}\n"
	"p.lead{margin:0 0 14px;color:var(--muted);font-size:13.5px}\n"
	".figure{display:flex;justify-content:center}\n"
	"svg.chart{width:100%;max-width:760px;height:auto}\n"
	".grid3{display:grid;grid-template-columns:repeat(2,1fr);gap:10px 18px;margin-top:14px}\n"
	"@media (max-width:760px){.grid3{grid-template-columns:1fr}}\n"
	".grid3 svg.chart{max-width:none}\n"
	"table{border-collapse:collapse;width:100%;font-size:13.5px}\n"
	"th{text-align:left;color:var(--muted);font-weight:600;border-bottom:1.5px solid var(--line);"
	"padding:7px 9px;white-space:nowrap;font-size:12.5px}\n"
	"td{border-bottom:1px solid #eef0f3;padding:6px 9px;vertical-align:top}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td:first-child,td.nw,code.nw,span.nw{white-space:nowrap}\n"
	"tr.stale td{color:#98a2b3}\n"
	"tr.has-why td{border-bottom:none;padding-bottom:2px}tr.why td{padding-top:0}\n"
	".scroll{overflow-x:auto}\n"
	".pill{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:650;"
	"white-space:nowrap;background:#eef0f3;color:#475467}\n"
	".pill.passed,.pill.done,.pill.accepted,.pill.applied,.pill.ok{background:#e3f4ec;color:#1b7f5b}\n"
	".pill.failed,.pill.rejected,.pill.rolled-back,.pill.bad_answer{background:#fdecea;color:#b42318}\n"
	".pill.timeout,.pill.running,.pill.interrupted{background:#fff1dc;color:#8a5300}\n"
	".pill.pending{background:#eef2ff;color:#3949ab}\n"
	".stage{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:7px;vertical-align:-1px}\n"
	".pos{color:#1b7f5b;font-weight:650}.neg{color:#b42318;font-weight:650}\n"
	".muted{color:var(--muted)}.small{font-size:12.5px}\n"
	"code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f6;"
	"padding:1px 5px;border-radius:4px}\n"
	"pre.diff{background:#fbfbfd;border:1px solid var(--line);border-radius:8px;padding:8px 0;margin:6px 0 12px;"
	"font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;"
	"overflow-wrap:anywhere;max-height:520px;overflow:auto}\n"
	"pre.diff>span,pre.diff>del,pre.diff>ins{display:block;padding:0 12px}\n"
	"pre.diff del{background:#fdecea;color:#8c1d18;text-decoration:none}\n"
	"pre.diff ins{background:#e3f4ec;color:#0f5223;text-decoration:none}\n"
	"pre.diff .gap{color:#98a2b3}\n"
	".sec{margin:10px 0 4px}.sec-h{font-weight:650;font-size:14px}\n"
	".sid{font-size:11.5px;color:var(--muted);background:none}\n"
	".badge{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.05em;"
	"padding:1px 7px;border-radius:5px;margin-right:6px;background:#eef0f3;color:#475467}\n"
	".badge.added{background:#e3f4ec;color:#1b7f5b}.badge.removed{background:#fdecea;color:#b42318}\n"
	".badge.changed{background:#fff1dc;color:#8a5300}.badge.moved{background:#eef2ff;color:#3949ab}\n"
	"p.unchanged{font-size:13px;color:var(--muted)}p.note{margin:2px 0 6px;font-size:13px;color:var(--muted)}\n"
	"details.file{margin:6px 0}details.file summary{cursor:pointer;font-size:13.5px}\n"
	".msg{max-width:360px;overflow-wrap:anywhere;font-size:12.5px;color:#344054}\n"
	".links a{margin-right:8px;font-size:12.5px;white-space:nowrap}\n"
	"dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0;font-size:13.5px}\n"
	"dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;overflow-wrap:anywhere}\n"
	"footer{color:var(--muted);font-size:12.5px;margin-top:10px}\n"
	"@media print{body{background:#fff;font-size:12px}header.top{padding:18px 0 40px;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}section.card,.kpi{box-shadow:none;"
	"border:1px solid #d0d5dd}section.card{break-inside:avoid-page}pre.diff{max-height:none}"
	"details.file[open] summary~*{display:block}a{color:inherit;text-decoration:none}}\n";

void html_page_open(struct buf *b, const char *title)
{
	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"skillc-report\">\n<title>");
	html_str(b, title);
	buf_adds(b, "</title>\n<style>\n");
	buf_adds(b, style);
	buf_adds(b, "</style>\n</head>\n<body>\n");
}

void html_page_close(struct buf *b)
{
	buf_adds(b, "</body>\n</html>\n");
}
