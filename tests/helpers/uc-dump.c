/* uc-dump — prints what tools/lib/base/unicode.c computes, for comparison with
 * Python in tests/e2e/unicode.sh.
 *   uc-dump all    one line per code point: "<hex> <nfkc hex...> <a><l><s>"
 *   uc-dump nfkc   NFKC of each stdin line */
#include <stdio.h>
#include <string.h>

#include "base/unicode.h"

static void dump_all(void)
{
	struct buf line = BUF_INIT, enc = BUF_INIT, norm = BUF_INIT;
	for (uint32_t cp = 0; cp < 0x110000; cp++) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		buf_reset(&enc);
		buf_reset(&norm);
		utf8_put(&enc, cp);
		uc_nfkc(enc.data, enc.len, &norm);
		buf_reset(&line);
		buf_printf(&line, "%X", cp);
		for (size_t i = 0; i < norm.len;) {
			size_t n;
			buf_printf(&line, " %X", utf8_decode(norm.data + i, norm.len - i, &n));
			i += n;
		}
		buf_printf(&line, " %d%d%d\n", uc_is_alnum(cp), uc_changes_lower(cp), uc_is_space(cp));
		fwrite(line.data, 1, line.len, stdout);
	}
	buf_free(&line);
	buf_free(&enc);
	buf_free(&norm);
}

static void dump_nfkc(void)
{
	char s[4096];
	struct buf norm = BUF_INIT;
	while (fgets(s, sizeof s, stdin)) {
		size_t n = strcspn(s, "\n");
		buf_reset(&norm);
		uc_nfkc(s, n, &norm);
		fwrite(norm.data, 1, norm.len, stdout);
		putchar('\n');
	}
	buf_free(&norm);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "all"))
		dump_all();
	else if (argc == 2 && !strcmp(argv[1], "nfkc"))
		dump_nfkc();
	else
		return fprintf(stderr, "usage: uc-dump all|nfkc\n"), 2;
	return 0;
}
