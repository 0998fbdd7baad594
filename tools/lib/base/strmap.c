#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/util.h"

static size_t slot_of(const struct strmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)XXH3_64bits(key, strlen(key)) & mask;
	while (m->v[i].key && strcmp(m->v[i].key, key))
		i = (i + 1) & mask;
	return i;
}

size_t *strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t i = slot_of(m, key);
	return m->v[i].key ? &m->v[i].value : NULL;
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->v = xcalloc(m->cap, sizeof *m->v);
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].key)
			m->v[slot_of(m, old.v[i].key)] = old.v[i];
	free(old.v);
}

size_t *strmap_put(struct strmap *m, const char *key, bool *added)
{
	if ((m->n + 1) * 4 > m->cap * 3) /* at most 3/4 full */
		grow(m);
	size_t i = slot_of(m, key);
	bool fresh = !m->v[i].key;
	if (fresh) {
		m->v[i].key = xstrdup(key);
		m->v[i].value = 0;
		m->n++;
	}
	if (added)
		*added = fresh;
	return &m->v[i].value;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->v[i].key);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}
