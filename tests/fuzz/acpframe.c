/* acpframe — the framing of an agent's stdout (acp_frame): any bytes, cut
 * into pieces of the sizes the input's first bytes choose, come out as the
 * same lines however they are cut: every line whole and without '\n', the
 * lines and the unfinished tail together the input byte for byte. */
#include "fuzz.h"
#include "local/acp.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void collect(void *ctx, char *line, size_t len)
{
	struct buf *out = ctx;
	if (line[len] != '\0' || memchr(line, '\n', len))
		abort(); /* a line is NUL-terminated where it ends and holds no '\n' */
	buf_add(out, line, len);
	buf_addc(out, '\n');
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 4)
		return 0;
	/* the first 4 bytes: piece sizes, 1..256 each, taken in turn */
	const unsigned char *cuts = data;
	const char *p = (const char *)data + 4, *end = (const char *)data + size;
	struct buf in = BUF_INIT, out = BUF_INIT;
	size_t scanned = 0;
	for (unsigned k = 0; p < end; k++) {
		size_t n = (size_t)cuts[k % 4] + 1;
		if (n > (size_t)(end - p))
			n = (size_t)(end - p);
		acp_frame(&in, &scanned, p, n, collect, &out);
		if (scanned != in.len || (in.len && memchr(in.data, '\n', in.len)))
			abort(); /* the tail is unfinished and known to be searched */
		p += n;
	}
	buf_add(&out, in.data, in.len);
	if (out.len != size - 4 || (out.len && memcmp(out.data, data + 4, out.len)))
		abort(); /* lines + tail == the input */
	buf_free(&in);
	buf_free(&out);
	return 0;
}
