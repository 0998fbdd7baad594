/* jget — prints one value of a JSON file for shell tests:
 *   jget FILE a.b.0.c       strings raw, anything else as compact JSON
 *   jget -l N FILE path     the Nth line of a JSONL file (1-based; -1 = last)
 *   jget -n FILE            the number of lines of a JSONL file
 * Exits 1 when the path is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "jget: cannot read %s\n", path);
		exit(2);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

int main(int argc, char **argv)
{
	int line = 0;
	int i = 1;
	if (argc >= 3 && !strcmp(argv[1], "-n")) {
		char *text = slurp(argv[2]);
		int n = 0;
		for (char *p = text; *p; p++)
			n += *p == '\n';
		if (*text && text[strlen(text) - 1] != '\n')
			n++;
		printf("%d\n", n);
		free(text);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "-l")) {
		line = atoi(argv[2]);
		i = 3;
	}
	if (argc - i < 1 || argc - i > 2) {
		fprintf(stderr, "usage: jget [-l N] FILE [PATH] | jget -n FILE\n");
		return 2;
	}
	char *text = slurp(argv[i]);
	char *doc = text;
	if (line) {
		int total = 0;
		for (char *p = text; *p; p++)
			total += *p == '\n';
		if (*text && text[strlen(text) - 1] != '\n')
			total++;
		int want = line > 0 ? line : total + line + 1;
		char *p = text;
		for (int k = 1; k < want && p; k++) {
			p = strchr(p, '\n');
			if (p)
				p++;
		}
		if (!p || want < 1)
			return 1;
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		doc = p;
	}
	cJSON *v = cJSON_Parse(doc);
	if (!v) {
		fprintf(stderr, "jget: %s is not JSON\n", argv[i]);
		return 2;
	}
	cJSON *at = v;
	if (argc - i == 2 && *argv[i + 1]) {
		char *path = strdup(argv[i + 1]), *save = NULL;
		for (char *k = strtok_r(path, ".", &save); k && at; k = strtok_r(NULL, ".", &save)) {
			if (cJSON_IsArray(at)) {
				int idx = atoi(k);
				at = cJSON_GetArrayItem(at, idx < 0 ? cJSON_GetArraySize(at) + idx : idx);
			} else {
				at = cJSON_GetObjectItemCaseSensitive(at, k);
			}
		}
		free(path);
	}
	if (!at) {
		cJSON_Delete(v);
		free(text);
		return 1;
	}
	if (cJSON_IsString(at)) {
		printf("%s\n", at->valuestring);
	} else {
		char *s = cJSON_PrintUnformatted(at);
		printf("%s\n", s);
		free(s);
	}
	cJSON_Delete(v);
	free(text);
	return 0;
}
