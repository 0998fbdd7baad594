/* html.h — text into HTML and SVG (XML) safely. Everything from outside
 * (skill text, trajectories, names, paths) goes through these: the five
 * markup characters & < > " ' become entities, and bytes that are not
 * valid UTF-8, and control characters other than tab, line feed and
 * carriage return (which XML forbids), become U+FFFD, so any input renders
 * as text and never as markup, in an element or in a quoted attribute. */
#ifndef SKILLC_REPORT_HTML_H
#define SKILLC_REPORT_HTML_H

#include <stddef.h>

#include "base/util.h"

/* len bytes of s, escaped. */
void html_text(struct buf *b, const char *s, size_t len);
/* A NUL-terminated string, escaped; NULL appends nothing. */
void html_str(struct buf *b, const char *s);
/* At most max code points of s, escaped, with "…" when cut. */
void html_str_cut(struct buf *b, const char *s, size_t max);
/* A relative path as a link target: each byte outside [A-Za-z0-9/._~-]
 * percent-encoded (so '#', '?', ':' and spaces keep their meaning as file
 * name characters), then escaped for a quoted attribute. */
void html_href(struct buf *b, const char *path);

/* The page's start: doctype, head with the title (escaped) and the one
 * inline style sheet (screen and print), body. No script, no external file. */
void html_page_open(struct buf *b, const char *title);
void html_page_close(struct buf *b);

#endif
