/* migration.h -- the "-- migration N" blocks of a schema file as transaction scripts. */
#ifndef FT_MIGRATION_H
#define FT_MIGRATION_H

/* One pending block: "BEGIN IMMEDIATE; <block> PRAGMA user_version = N; COMMIT;". */
struct migration {
	int version;
	char *sql;
};

/*
 * Split schema into its "-- migration N" blocks and return, in file order,
 * those with N above have (the database's PRAGMA user_version), each as
 * one transaction script. Returns how many. Caller frees with
 * migrations_free.
 */
int migrations_pending(const char *schema, int have, struct migration **out);
void migrations_free(struct migration *m, int n);

#endif
