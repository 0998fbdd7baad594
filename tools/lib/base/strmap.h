/* strmap.h — a string-keyed hash map to a number, for what would otherwise
 * be a linear search per item (section ordinals, seen paths): expected O(1)
 * per lookup, so loops over n items stay linear. Keys are copied. */
#ifndef SKILLC_BASE_STRMAP_H
#define SKILLC_BASE_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap_slot {
	char *key;   /* NULL: empty */
	size_t value;
};
struct strmap {
	struct strmap_slot *v;
	size_t n, cap; /* cap is 0 or a power of two */
};
#define STRMAP_INIT { NULL, 0, 0 }

/* The value of key, or NULL when absent. */
size_t *strmap_get(const struct strmap *m, const char *key);
/* The value of key, inserted as 0 when absent (*added says which). */
size_t *strmap_put(struct strmap *m, const char *key, bool *added);
void strmap_free(struct strmap *m);

#endif
