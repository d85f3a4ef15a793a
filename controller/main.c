/* main.c -- fleettune-ctl: the table of commands (each defined in its family's file under
 * cmd/, with its options), help, and the dispatch: a command's own options parsed, the rest
 * refused with its usage. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "log.h"
#include "options.h"
#include "version.h"
#include "banned.h"

static int cmd_help(const struct cmd *c, struct opts *o);

static const struct cmd cmd_help_entry = {
	.name = "help",
	.args = "[COMMAND]",
	.help = "Show the commands, or one command's usage.",
	.nargs = -1,
	.exec = cmd_help,
};

static const struct cmd *const cmds[] = {
	&cmd_nodes_entry,   &cmd_sweep_entry,   &cmd_history_entry, &cmd_show_entry,
	&cmd_compare_entry, &cmd_analyze_entry, &cmd_apply_entry,   &cmd_rollout_entry,
	&cmd_verify_entry,  &cmd_export_entry,  &cmd_report_entry,  &cmd_site_entry,
	&cmd_help_entry,
};

#define NCMDS ((int)(sizeof(cmds) / sizeof(cmds[0])))

static const struct cmd *cmd_find(const char *name)
{
	int i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

static int cmd_help(const struct cmd *c, struct opts *o)
{
	struct buf b = BUF_INIT;
	int i;

	(void)c;
	if (o->nargs > 0 && cmd_find(o->args[0])) {
		usage_print(stdout, cmd_find(o->args[0]));
		return 0;
	}
	if (o->nargs > 0) {
		log_error("unknown command '%s'", o->args[0]);
		return EXIT_USAGE;
	}
	printf("fleettune-ctl %s -- tune block devices across a fleet of fleettune agents\n\n"
	       "commands:\n",
	       FLEETTUNE_VERSION);
	for (i = 0; i < NCMDS; i++) {
		buf_reset(&b);
		usage_synopsis(cmds[i], &b);
		printf("  %s\n", b.data + strlen("fleettune-ctl "));
	}
	printf("\nfleettune-ctl COMMAND --help shows a command's details. The database defaults "
	       "to\n$XDG_DATA_HOME/fleettune/ctl.db (~/.local/share/fleettune/ctl.db).\n");
	buf_release(&b);
	return 0;
}

/* Parse c's options from argv (argv[0] is the command's name) and run it. */
static int cmd_dispatch(const struct cmd *c, int argc, char **argv)
{
	struct opts o = { .min_effect_pct = NAN };
	struct err e = { 0 };
	int first;

	if (opt_parse(cmd_options, CO_N, c->opts | CMD_OPTS(HELP), c->name, argc, argv, &o, &first,
	              &e) < 0) {
		log_error("%s", e.msg);
		usage_print(stderr, c);
		return EXIT_USAGE;
	}
	if (o.help) {
		usage_print(stdout, c);
		return 0;
	}
	if (o.verbose)
		log_init("fleettune-ctl", LOG_DEBUG);
	o.args = argv + first;
	o.nargs = argc - first;
	if (c->nargs >= 0 && o.nargs != c->nargs) {
		usage_print(stderr, c);
		return EXIT_USAGE;
	}
	return c->exec(c, &o);
}

int main(int argc, char **argv)
{
	struct opts none = { 0 };
	const struct cmd *c;

	log_init("fleettune-ctl", LOG_INFO);
	if (argc < 2) {
		cmd_help(NULL, &none);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(NULL, &none);
	if (!strcmp(argv[1], "--version")) {
		printf("fleettune-ctl %s\n", FLEETTUNE_VERSION);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		log_error("unknown command '%s' (try fleettune-ctl help)", argv[1]);
		return EXIT_USAGE;
	}
	return cmd_dispatch(c, argc - 1, argv + 1);
}
