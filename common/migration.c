/* migration.c -- schema files split into versioned migration scripts (no SQLite here). */
#include <stdlib.h>
#include <string.h>

#include "migration.h"
#include "xmalloc.h"
#include "banned.h"

#define MARK "-- migration "

int migrations_pending(const char *schema, int have, struct migration **out)
{
	const char *p = schema, *next;
	struct migration *list = NULL;
	int n = 0, v;
	char *block;

	while ((p = strstr(p, MARK))) {
		v = (int)strtol(p + strlen(MARK), NULL, 10);
		next = strstr(p + strlen(MARK), MARK);
		if (v > have) {
			block = next ? xstrndup(p, (size_t)(next - p)) : xstrdup(p);
			list = xrealloc(list, (size_t)(n + 1) * sizeof(*list));
			list[n].version = v;
			list[n].sql = xasprintf("BEGIN IMMEDIATE;\n%s\nPRAGMA user_version = %d;\n"
			                        "COMMIT;",
			                        block, v);
			free(block);
			n++;
		}
		p = next ? next : p + strlen(p);
	}
	*out = list;
	return n;
}

void migrations_free(struct migration *m, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(m[i].sql);
	free(m);
}
