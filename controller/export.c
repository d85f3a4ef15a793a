/* export.c -- a sweep's chosen configuration as the files that keep it: a udev rule or a
 * tuned profile, and the sysctls beside them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fsparam.h"
#include "xmalloc.h"
#include "banned.h"

/* Where a parameter lives under /sys/block/DEV (sysctls never come here). */
static void sysfs_attr(const char *name, char *out, size_t len)
{
	if (!strncmp(name, "iosched.", 8))
		snprintf(out, len, "queue/iosched/%s", name + 8);
	else if (!strcmp(name, "queue_depth"))
		snprintf(out, len, "device/queue_depth");
	else if (!strcmp(name, "setra"))
		snprintf(out, len, "queue/read_ahead_kb");
	else
		snprintf(out, len, "queue/%s", name);
}

static bool is_sysctl(const char *name)
{
	return !fsparam_is(name) && (!strncmp(name, "vm.", 3) || !strncmp(name, "fs.", 3) ||
	                             !strncmp(name, "kernel.", 7));
}

/* Whether s may stand in the filesystem note's mkfs, mount and fstab lines (commands one copies
 * into a shell or /etc/fstab): letters, digits and "._-+,:/=^" (mkfs's "size=4k", ext4's
 * "^has_journal"): nothing that quotes, expands, ends the comment line or starts a field. */
static bool export_fs_word_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-+,:/=^", *s)))
			return false;
	return true;
}

/* The filesystem configuration c asks for (job.filesystem with the fs.* values on top), as the
 * export writes it: mkfs's options are the argv tokens the agents get (fsparam_mkfs_tokens),
 * joined by one space. 0 with fs->present false when there is none; -EINVAL
 * "export_refused" naming the parameter when a value cannot stand in those lines. */
static int export_fs(const struct sweep *s, const struct config *c, const char *format,
                     struct fsparam_fs *fs, struct err *e)
{
	char tok[32][96];
	const char *bad = NULL;
	size_t len = 0;
	int n, i;

	fsparam_fs_of(&s->plan, c, fs);
	if (!fs->present)
		return 0;
	n = fsparam_mkfs_tokens(fs->mkfs, tok, 32);
	if (!*fs->type || !export_fs_word_ok(fs->type))
		bad = FSPARAM_TYPE;
	else if (!export_fs_word_ok(fs->mount))
		bad = FSPARAM_MOUNT;
	else if (n < 0)
		bad = FSPARAM_MKFS;
	for (i = 0; !bad && i < n; i++)
		if (!export_fs_word_ok(tok[i]))
			bad = FSPARAM_MKFS;
	if (bad)
		return err_set(e, -EINVAL, "export_refused",
		               "%s: the filesystem's value has a character the mkfs, mount and "
		               "fstab lines of a %s file cannot hold safely (quotes, line breaks, "
		               "'#', '$', ';', ...)",
		               bad, format);
	fs->mkfs[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(fs->mkfs + len, sizeof(fs->mkfs) - len, "%s%s",
		                        i ? " " : "", tok[i]);
	return 0;
}

/* The filesystem fs (export_fs: checked) as comment lines: neither a udev rule nor tuned can
 * make or mount one, so the user is told what to run (the mkfs options as the plan gives
 * them). */
static void filesystem_note(const struct fsparam_fs *fs, bool udev, struct buf *out)
{
	if (!fs->present)
		return;
	buf_printf(out,
	           "\n# filesystem: %s cannot make or mount one; the sweep's choice is fs.type=%s "
	           "fs.mkfs=%s fs.mount=%s:\n",
	           udev ? "a udev rule" : "tuned", fs->type, fs->mkfs[0] ? fs->mkfs : "(defaults)",
	           fs->mount[0] ? fs->mount : "(defaults)");
	buf_printf(out, "#   mkfs.%s %s%s/dev/DEVICE\n", fs->type, fs->mkfs,
	           fs->mkfs[0] ? " " : "");
	buf_printf(out, "#   mount -t %s -o %s /dev/DEVICE /MOUNTPOINT\n", fs->type,
	           fs->mount[0] ? fs->mount : "defaults");
	buf_printf(out, "#   fstab: /dev/DEVICE /MOUNTPOINT %s %s 0 0\n", fs->type,
	           fs->mount[0] ? fs->mount : "defaults");
	buf_puts(out, "# (each job's own mkfs command, as its agent ran it, is in the job: GET "
	              "/api/v1/jobs/ID, filesystem.mkfs)\n");
}

/* Whether s may stand as it is in a udev match/assignment or a tuned line: a sysfs name or
 * value (letters, digits, "._-+,:/" and no "..": nothing that quotes, comments, ends a line
 * or escapes). */
static bool export_word_ok(const char *s)
{
	if (!*s || strstr(s, ".."))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-+,:/", *s)))
			return false;
	return true;
}

/* s for a comment line: control characters (a line break would end the comment and start a
 * rule) become '?', and '"' becomes '\''. */
static void comment_safe(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?'
		         : s[i] == '"'                                ? '\''
		                                                      : s[i];
	out[i] = '\0';
}

/* Refuse what cannot be written safely for the format (the filesystem: export_fs). */
static int export_check(const struct sweep *s, const struct config *c, const char *format,
                        struct err *e)
{
	int i, k;

	for (k = 0; k < s->plan.nnodes; k++)
		if (!export_word_ok(s->plan.nodes[k].device))
			return err_set(e, -EINVAL, "export_refused",
			               "node %s: device '%s' cannot be written into a %s file",
			               s->plan.nodes[k].name, s->plan.nodes[k].device, format);
	for (i = 0; i < c->n; i++)
		if (!fsparam_is(c->s[i].name) &&
		    (!export_word_ok(c->s[i].name) || !export_word_ok(c->s[i].value)))
			return err_set(
			        e, -EINVAL, "export_refused",
			        "parameter %.*s: the name or its value has a character a %s file "
			        "cannot hold safely (quotes, spaces, line breaks, '#', '$', ...)",
			        80, c->s[i].name, format);
	return 0;
}

/* The value to write: setra (512-byte sectors) becomes read_ahead_kb. */
static void attr_value(const struct setting *st, char *out, size_t len)
{
	if (!strcmp(st->name, "setra"))
		snprintf(out, len, "%lld", strtoll(st->value, NULL, 10) / 2);
	else
		snprintf(out, len, "%s", st->value);
}

/* The scheduler first: switching it resets nr_requests and iosched/. */
static void export_order(const struct config *c, int *order)
{
	int i, k = 0;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->s[i].name, "scheduler"))
			order[k++] = i;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->s[i].name, "scheduler") && strncmp(c->s[i].name, "iosched.", 8))
			order[k++] = i;
	for (i = 0; i < c->n; i++)
		if (!strncmp(c->s[i].name, "iosched.", 8))
			order[k++] = i;
}

/* Order node indexes by device name, ties by index (qsort_r's comparison). */
static int device_cmp(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(p->nodes[ia].device, p->nodes[ib].device);

	return c ? c : (ia > ib) - (ia < ib);
}

/* Per node: true when an earlier node has the same device name. Sorted, not compared pair by
 * pair: a fleet of thousands exports in O(n log n). Caller has ownership. */
static bool *device_repeats(const struct plan *p)
{
	int *idx = xcalloc((size_t)p->nnodes + 1, sizeof(int));
	bool *rep = xcalloc((size_t)p->nnodes + 1, sizeof(bool));
	int k;

	for (k = 0; k < p->nnodes; k++)
		idx[k] = k;
	qsort_r(idx, (size_t)p->nnodes, sizeof(int), device_cmp, (void *)p);
	for (k = 1; k < p->nnodes; k++)
		rep[idx[k]] = !strcmp(p->nodes[idx[k - 1]].device, p->nodes[idx[k]].device);
	free(idx);
	return rep;
}

int export_render(const struct sweep *s, const char *format, enum export_what what, struct buf *out,
                  struct err *e)
{
	bool best = what == EXPORT_BEST;
	const struct config *c = best && s->best >= 0 ? &s->points[s->best].cfg : &s->plan.baseline;
	int order[CONFIG_MAX], i, k;
	char attr[160], val[PARAM_VALUE_MAX], name[256];
	bool *repeat;
	int rc;
	bool udev = !strcmp(format, "udev"), sysctls = false;
	struct fsparam_fs fs;

	if (!udev && strcmp(format, "tuned"))
		return err_set(e, -EINVAL, "bad_format", "--format: '%s' is not udev or tuned",
		               format);
	if (best && s->best < 0)
		return err_set(e, -ENOENT, "no_best", "sweep %lld has no best configuration",
		               (long long)s->id);
	rc = export_check(s, c, format, e);
	if (rc == 0)
		rc = export_fs(s, c, format, &fs, e);
	if (rc)
		return rc;
	comment_safe(s->plan.name, name, sizeof(name));
	export_order(c, order);
	if (udev) {
		buf_printf(out, "# fleettune sweep %lld \"%s\": %s\n", (long long)s->id, name,
		           best ? "best configuration" : "its baseline, exported on purpose");
		buf_printf(out, "# install as /etc/udev/rules.d/60-fleettune.rules\n");
	} else {
		buf_printf(out,
		           "# fleettune sweep %lld \"%s\"\n[main]\nsummary=fleettune sweep "
		           "%lld: %s\n\n[sysfs]\n",
		           (long long)s->id, name, (long long)s->id,
		           best ? "best configuration" : "baseline");
	}
	repeat = device_repeats(&s->plan);
	for (k = 0; k < s->plan.nnodes; k++) {
		const char *dev = s->plan.nodes[k].device;

		if (repeat[k])
			continue; /* one rule per distinct device name */
		if (udev)
			buf_printf(out, "ACTION==\"add|change\", KERNEL==\"%s\"", dev);
		for (i = 0; i < c->n; i++) {
			const struct setting *st = &c->s[order[i]];

			if (fsparam_is(st->name))
				continue; /* made by jobs: filesystem_note */
			if (is_sysctl(st->name)) {
				sysctls = true;
				continue;
			}
			sysfs_attr(st->name, attr, sizeof(attr));
			attr_value(st, val, sizeof(val));
			if (udev)
				buf_printf(out, ", ATTR{%s}=\"%s\"", attr, val);
			else
				buf_printf(out, "/sys/block/%s/%s=%s\n", dev, attr, val);
		}
		if (udev)
			buf_puts(out, "\n");
	}
	free(repeat);
	if (!sysctls) {
		filesystem_note(&fs, udev, out);
		return 0;
	}
	if (udev)
		buf_puts(out, "# sysctls (not expressible as udev rules): put in "
		              "/etc/sysctl.d/60-fleettune.conf\n");
	else
		buf_puts(out, "\n[sysctl]\n");
	for (i = 0; i < c->n; i++)
		if (is_sysctl(c->s[i].name))
			buf_printf(out, "%s%s=%s\n", udev ? "# " : "", c->s[i].name, c->s[i].value);
	filesystem_note(&fs, udev, out);
	return 0;
}
