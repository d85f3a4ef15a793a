/* export.c -- a sweep's chosen configurations as the files that keep them: per cohort a udev
 * rule or a tuned profile matching the cohort's identity, and the sysctls beside them. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/words.h"
#include "plan/fsparam.h"
#include "render/export.h"
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

/* The mkfs command an agent ran for configuration c (a node result of a point of c, its job's
 * filesystem.mkfs), its device written /dev/DEVICE, into ran (len bytes); "" when no node
 * recorded one or a word of it could not stand in a shell line (an agent's text). */
static void export_mkfs_ran(const struct sweep *s, const struct config *c, char *ran, size_t len)
{
	int i, k;

	ran[0] = '\0';
	for (i = 0; i < s->npoints && !ran[0]; i++) {
		const struct point *p = &s->points[i];

		if (&p->cfg != c && !config_equal(&p->cfg, c))
			continue;
		for (k = 0; k < s->plan.nnodes && !ran[0]; k++) {
			const struct node_result *r = &p->nodes[k];
			char dev[80], *copy, *tok, *save = NULL;
			size_t used = 0;
			bool ok = true;

			if (!r->mkfs || r->state != NODE_OK)
				continue;
			snprintf(dev, sizeof(dev), "/dev/%s", s->plan.nodes[k].device);
			copy = xstrdup(r->mkfs);
			for (tok = strtok_r(copy, " ", &save); tok && ok;
			     tok = strtok_r(NULL, " ", &save)) {
				const char *w = strcmp(tok, dev) ? tok : "/dev/DEVICE";

				ok = export_fs_word_ok(w) && used + strlen(w) + 2 < len;
				if (ok)
					used += (size_t)snprintf(ran + used, len - used, "%s%s",
					                         used ? " " : "", w);
			}
			free(copy);
			if (!ok || !strstr(ran, "/dev/DEVICE"))
				ran[0] = '\0';
		}
	}
}

/* The filesystem configuration c asks for (job.filesystem with the fs.* values on top), as the
 * export writes it: mkfs's options are the argv tokens the agents get (fsparam_mkfs_tokens),
 * joined by one space. 0 with fs->present false when there is none; -EINVAL
 * "export_refused" naming the parameter when a value cannot stand in those lines. */
static int export_fs(const struct sweep *s, const struct config *c, const char *format,
                     struct fsparam_fs *fs, char *ran, size_t ranlen, struct err *e)
{
	char tok[32][96];
	const char *bad = NULL;
	size_t len = 0;
	int n, i;

	ran[0] = '\0';
	fsparam_fs_of(&s->plan, c, fs);
	if (!fs->present)
		return 0;
	export_mkfs_ran(s, c, ran, ranlen);
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
		return err_set(e, -EINVAL, ERR_EXPORT_REFUSED,
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
 * make or mount one, so the user is told what to run: the mkfs command the agents ran (ran:
 * the agent writes the plan's options as mkfs takes them, "-i size=1k" as "-i size=1024",
 * which mkfs.xfs 6.1 requires), else the plan's options. */
static void filesystem_note(const struct fsparam_fs *fs, const char *ran, bool udev,
                            struct buf *out)
{
	if (!fs->present)
		return;
	buf_printf(out,
	           "\n# filesystem: %s cannot make or mount one; the sweep's choice is fs.type=%s "
	           "fs.mkfs=%s fs.mount=%s:\n",
	           udev ? "a udev rule" : "tuned", fs->type, fs->mkfs[0] ? fs->mkfs : "(defaults)",
	           fs->mount[0] ? fs->mount : "(defaults)");
	if (ran[0])
		buf_printf(out, "#   %s\n", ran);
	else
		buf_printf(out, "#   mkfs.%s %s%s/dev/DEVICE\n", fs->type, fs->mkfs,
		           fs->mkfs[0] ? " " : "");
	buf_printf(out, "#   mount -t %s -o %s /dev/DEVICE /MOUNTPOINT\n", fs->type,
	           fs->mount[0] ? fs->mount : "defaults");
	buf_printf(out, "#   fstab: /dev/DEVICE /MOUNTPOINT %s %s 0 0\n", fs->type,
	           fs->mount[0] ? fs->mount : "defaults");
	buf_puts(out, ran[0] ? "# (the mkfs command as the sweep's agents ran it: each job's "
	                       "filesystem.mkfs, GET /api/v1/jobs/ID)\n"
	                     : "# (each job's own mkfs command, as its agent ran it, is in the "
	                       "job: GET /api/v1/jobs/ID, filesystem.mkfs)\n");
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

/* Text of a comment line: control characters and bytes above ASCII (a line break would end
 * the comment and start a rule) become '?', and '"' becomes '\'' (comments quote the plan's
 * name). */
static void comment_text(struct buf *out, const char *t)
{
	for (; *t; t++)
		buf_printf(out, "%c",
		           (unsigned char)*t < 0x20 || (unsigned char)*t > 0x7e ? '?'
		           : *t == '"'                                          ? '\''
		                                                                : *t);
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

/* Refuse what cannot be written safely for the format: c's names and values, and the device
 * names when the rules name devices (names); the filesystem: export_fs. */
static int export_check(const struct sweep *s, const struct config *c, bool names,
                        const char *format, struct err *e)
{
	int i, k;

	for (k = 0; names && k < s->plan.nnodes; k++)
		if (!export_word_ok(s->plan.nodes[k].device))
			return err_set(e, -EINVAL, ERR_EXPORT_REFUSED,
			               "node %s: device '%s' cannot be written into a %s file",
			               s->plan.nodes[k].name, s->plan.nodes[k].device, format);
	for (i = 0; i < c->n; i++)
		if (!fsparam_is(c->s[i].name) &&
		    (!export_word_ok(c->s[i].name) || !export_word_ok(c->s[i].value)))
			return err_set(
			        e, -EINVAL, ERR_EXPORT_REFUSED,
			        "parameter %.*s: the name or its value has a character a %s file "
			        "cannot hold safely (quotes, spaces, line breaks, '#', '$', ...)",
			        80, c->s[i].name, format);
	return 0;
}

/* ---- the legacy form: one rule per device name (no node reported its identity) ---- */

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

/* The attribute assignments of c (udev: ", ATTR{..}=\"..\""; tuned: "PREFIX/attr=value"
 * lines); returns whether c has sysctls. */
static bool assignments(const struct config *c, bool udev, const char *prefix, struct buf *out)
{
	char attr[160], val[PARAM_VALUE_MAX];
	int order[CONFIG_MAX], i;
	bool sysctls = false;

	export_order(c, order);
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
			buf_printf(out, "%s/%s=%s\n", prefix, attr, val);
	}
	return sysctls;
}

static void sysctl_lines(const struct config *c, bool udev, struct buf *out)
{
	int i;

	if (udev)
		buf_puts(out, "# sysctls (not expressible as udev rules): put in "
		              "/etc/sysctl.d/60-fleettune.conf\n");
	else
		buf_puts(out, "\n[sysctl]\n");
	for (i = 0; i < c->n; i++)
		if (is_sysctl(c->s[i].name))
			buf_printf(out, "%s%s=%s\n", udev ? "# " : "", c->s[i].name, c->s[i].value);
}

/* What the header comment says of the configuration exported. */
static const char *what_words(enum export_what what)
{
	switch (what) {
	case EXPORT_BEST:
		return "best configuration (confirmed)";
	case EXPORT_UNCONFIRMED:
		return "UNCONFIRMED configuration, exported on purpose (--unconfirmed)";
	case EXPORT_BASELINE:
		break;
	}
	return "its baseline, exported on purpose";
}

/* "# UNCONFIRMED: nr_requests=32 is not confirmed: ..." for an unconfirmed decision. */
static void unconfirmed_comment(const struct sweep *s, const struct decision *d, struct buf *out)
{
	struct buf why = BUF_INIT;
	char *t, *m;

	if (d->state != DECISION_UNCONFIRMED)
		return;
	words_decision_refusal(s, d, &why);
	buf_puts(out, "# UNCONFIRMED: ");
	/* The words' real minus sign as ASCII (a comment holds ASCII only). */
	for (t = why.data; t && (m = strstr(t, "\u2212")); t = m + strlen("\u2212")) {
		*m = '\0';
		comment_text(out, t);
		buf_puts(out, "-");
	}
	comment_text(out, t ? t : "");
	buf_puts(out,
	         "\n# exported on purpose with --unconfirmed: measure it before relying on it\n");
	buf_release(&why);
}

static int legacy_render(const struct sweep *s, bool udev, enum export_what what, struct buf *out,
                         struct err *e)
{
	bool best = what != EXPORT_BASELINE;
	const struct config *c = best ? &s->decision.cfg : &s->plan.baseline;
	const char *format = udev ? "udev" : "tuned";
	bool *repeat, sysctls = false;
	struct fsparam_fs fs;
	char prefix[200], ran[512];
	int k, rc;

	rc = export_check(s, c, true, format, e);
	if (rc == 0)
		rc = export_fs(s, c, format, &fs, ran, sizeof(ran), e);
	if (rc)
		return rc;
	repeat = device_repeats(&s->plan);
	if (udev) {
		buf_printf(out, "# fleettune sweep %lld \"", (long long)s->id);
		comment_text(out, s->plan.name);
		buf_printf(out, "\": %s\n", what_words(what));
		if (best)
			unconfirmed_comment(s, &s->decision, out);
		buf_puts(out, "# install as /etc/udev/rules.d/60-fleettune.rules\n");
	} else {
		buf_printf(out, "# fleettune sweep %lld \"", (long long)s->id);
		comment_text(out, s->plan.name);
		buf_puts(out, "\"\n");
		if (best)
			unconfirmed_comment(s, &s->decision, out);
		buf_printf(out, "[main]\nsummary=fleettune sweep %lld: %s\n\n[sysfs]\n",
		           (long long)s->id,
		           what == EXPORT_BEST          ? "best configuration"
		           : what == EXPORT_UNCONFIRMED ? "unconfirmed configuration"
		                                        : "baseline");
	}
	if (s->plan.nnodes > 1)
		buf_puts(out, "# no node reported what its device is (agents before identity, or a "
		              "sweep stored before it): these match device names, which on a mixed "
		              "fleet give every model one model's configuration\n");
	for (k = 0; k < s->plan.nnodes; k++) {
		if (repeat[k])
			continue; /* one rule per distinct device name */
		if (udev)
			buf_printf(out, "ACTION==\"add|change\", KERNEL==\"%s\"",
			           s->plan.nodes[k].device);
		snprintf(prefix, sizeof(prefix), "/sys/block/%s", s->plan.nodes[k].device);
		sysctls = assignments(c, udev, prefix, out);
		if (udev)
			buf_puts(out, "\n");
	}
	free(repeat);
	if (sysctls)
		sysctl_lines(c, udev, out);
	filesystem_note(&fs, ran, udev, out);
	return 0;
}

/* ---- per cohort: rules that match what the devices are ---- */

/* Transports whose identity files are laid out alike (agent/device/identity.c). */
static const char *family_of(const char *transport)
{
	static const char *const scsi[] = { "scsi", "sata", "sas", "usb" };
	size_t i;

	for (i = 0; transport && i < sizeof(scsi) / sizeof(scsi[0]); i++)
		if (!strcmp(transport, scsi[i]))
			return "scsi";
	return transport ? transport : "";
}

/* The udev keys that match an identity field, per transport family (NULL: any). */
static const struct {
	enum identity_field f;
	const char *family;
	const char *udev;
} udev_keys[] = {
	{ IDF_MODEL, "scsi", "ATTRS{model}" },
	{ IDF_MODEL, "nvme", "ATTRS{model}" },
	{ IDF_MODEL, "mmc", "ATTRS{name}" },
	{ IDF_FIRMWARE, "scsi", "ATTRS{rev}" },
	{ IDF_FIRMWARE, "nvme", "ATTRS{firmware_rev}" },
	{ IDF_FIRMWARE, "mmc", "ATTRS{fwrev}" },
	{ IDF_VENDOR, "scsi", "ATTRS{vendor}" },
	{ IDF_VENDOR, "virtio", "ATTRS{vendor}" },
	{ IDF_SERIAL, "nvme", "ATTRS{serial}" },
	{ IDF_SERIAL, "mmc", "ATTRS{serial}" },
	{ IDF_SERIAL, "virtio", "ATTR{serial}" },
	{ IDF_WWID, "scsi", "ATTRS{wwid}" },
	{ IDF_WWID, "nvme", "ATTR{wwid}" },
	{ IDF_ROTATIONAL, NULL, "ATTR{queue/rotational}" },
	{ IDF_LOGICAL_BLOCK_BYTES, NULL, "ATTR{queue/logical_block_size}" },
	{ IDF_PHYSICAL_BLOCK_BYTES, NULL, "ATTR{queue/physical_block_size}" },
	{ IDF_SIZE_BYTES, NULL, "ATTR{size}" },
};

/* The kernel names of a transport, when nothing else of the device can be matched. */
static const struct {
	const char *transport;
	const char *udev;  /* KERNEL=="..." */
	const char *tuned; /* a DEVNAME regex */
} transport_names[] = {
	{ "loop", "loop[0-9]*", "/dev/loop[0-9]+" },
	{ "dm", "dm-[0-9]*", "/dev/dm-[0-9]+" },
	{ "md", "md[0-9]*", "/dev/md[0-9]+" },
	{ "nvme", "nvme[0-9]*n[0-9]*", "/dev/nvme[0-9]+n[0-9]+" },
	{ "virtio", "vd[a-z]*", "/dev/vd[a-z]+" },
	{ "mmc", "mmcblk[0-9]*", "/dev/mmcblk[0-9]+" },
	{ "scsi", "sd[a-z]*", "/dev/sd[a-z]+" },
	{ "sata", "sd[a-z]*", "/dev/sd[a-z]+" },
	{ "sas", "sd[a-z]*", "/dev/sd[a-z]+" },
	{ "usb", "sd[a-z]*", "/dev/sd[a-z]+" },
};

/* A udev match value that matches v exactly: udev hands a rule's value to fnmatch(3) as it
 * is written, so the glob characters and the backslash go in brackets ("[*]", "[\\]": never a
 * backslash before the closing quote). Returns 0, or the first byte a rule cannot hold
 * exactly: '"' (udev before 247 has no escape for it), '|' (it separates patterns), control
 * characters and bytes above ASCII (SCSI and NVMe identity strings are printable ASCII). */
static int udev_value(struct buf *out, const char *v)
{
	for (; *v; v++) {
		unsigned char ch = (unsigned char)*v;

		if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '|')
			return ch;
		if (strchr("*?[\\$%", ch))
			buf_printf(out, ch == '\\' ? "[\\\\]" : "[%c]", ch);
		else
			buf_printf(out, "%c", ch);
	}
	return 0;
}

/* A tuned (Python) regex that matches the udev property udev makes of v, exactly: letters,
 * digits, '_' and '-' as they are; a run of blanks as one or more blanks or '_' (udev writes
 * ATA and SCSI models with '_', NVMe's as the kernel has them); udev's other safe characters
 * as "[.]", "[+]" and \xHH ("#:=@"); any other printable character as itself (\xHH) or the
 * '_' udev puts in its place. \xHH never quotes, comments, expands (tuned's ${...}) or ends
 * the line. Returns 0, or the first byte no rule can hold exactly (control characters, bytes
 * above ASCII). */
static int tuned_value(struct buf *out, const char *v)
{
	for (; *v; v++) {
		unsigned char ch = (unsigned char)*v;

		if (ch < 0x20 || ch > 0x7e)
			return ch;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-') {
			buf_printf(out, "%c", ch);
		} else if (ch == ' ') {
			while (v[1] == ' ')
				v++;
			buf_puts(out, "[ _]+");
		} else if (ch == '.' || ch == '+') {
			buf_printf(out, "[%c]", ch);
		} else if (strchr("#:=@", ch)) {
			buf_printf(out, "\\x%02x", ch);
		} else {
			buf_printf(out, "(?:\\x%02x|_)", ch);
		}
	}
	return 0;
}

/* The value of key j that a rule compares with the kernel's attribute: rotational as 1/0, the
 * size in 512-byte sectors. */
static void attr_text(enum identity_field f, const char *v, char *out, size_t len)
{
	if (f == IDF_ROTATIONAL)
		snprintf(out, len, "%s", !strcmp(v, "true") ? "1" : "0");
	else if (f == IDF_SIZE_BYTES)
		snprintf(out, len, "%llu", strtoull(v, NULL, 10) / 512);
	else
		snprintf(out, len, "%s", v);
}

/* An identity value no rule can match exactly: export_refused, naming the cohort, the field
 * and the byte (a looser match would give the cohort's values to other devices). */
static int value_refused(const struct sweep *s, int c, const char *key, int ch, bool udev,
                         struct err *e)
{
	struct buf k = BUF_INIT;
	int rc;

	sweep_cohort_key(s, c, &k);
	rc = err_set(e, -EINVAL, ERR_EXPORT_REFUSED,
	             "export: cohort %d (%s): its %s has a character (0x%02x) a %s cannot match "
	             "exactly; export the other format, or sweep with a cohort_by without %s",
	             c + 1, k.data ? k.data : "every node", key, (unsigned)ch,
	             udev ? "udev rule" : "tuned profile", key);
	buf_release(&k);
	return rc;
}

/* The device matches of cohort c for nodes of one transport: the udev keys (udev) or the
 * tuned lookaheads; host fields and node labels go to host, what cannot be matched to skipped.
 * Returns how many matches were written, or -EINVAL (value_refused). */
static int cohort_matches(const struct sweep *s, int c, const char *transport, bool udev,
                          struct buf *out, struct buf *host, struct buf *skipped, struct err *e)
{
	const char *fam = family_of(transport);
	int j, n = 0, bad;
	size_t k;

	for (j = 0; j < s->plan.ncohort_by; j++) {
		const char *key = s->plan.cohort_by[j], *v = s->cohorts[c].values[j];
		int f = strncmp(key, "label.", 6) ? identity_field_parse(key) : -1;
		char text[512];
		const char *ukey = NULL;

		if (f < 0 || f >= IDF_N_DEVICE) {
			buf_printf(host, "%s%s=%s", host->len ? " " : "", key, v ? v : "(none)");
			continue;
		}
		if (!v || (f == IDF_SERIAL && !strncmp(v, "sha256:", 7))) {
			buf_printf(skipped, "%s%s (%s)", skipped->len ? ", " : "", key,
			           v ? "hidden by --hide-serial" : "not reported");
			continue;
		}
		attr_text(f, v, text, sizeof(text));
		if (f == IDF_TRANSPORT)
			continue; /* the keys' family, and the kernel-name fallback */
		if (udev) {
			for (k = 0; k < sizeof(udev_keys) / sizeof(udev_keys[0]) && !ukey; k++)
				if (udev_keys[k].f == (enum identity_field)f &&
				    (!udev_keys[k].family || !strcmp(udev_keys[k].family, fam)))
					ukey = udev_keys[k].udev;
			if (!ukey) {
				buf_printf(skipped, "%s%s (no udev attribute on %s)",
				           skipped->len ? ", " : "", key,
				           *fam ? fam : "this transport");
				continue;
			}
			buf_printf(out, ", %s==\"", ukey);
			bad = udev_value(out, text);
			if (bad)
				return value_refused(s, c, key, bad, true, e);
			buf_puts(out, "\"");
			n++;
			continue;
		}
		if (f == IDF_MODEL) {
			/* SATA: udev's ID_MODEL is the whole ATA model; the kernel's has its first
			 * 16 characters. */
			buf_puts(out, "(?=.*^ID_MODEL=");
			bad = tuned_value(out, text);
			buf_puts(out, !strcmp(fam, "scsi") && strlen(text) == 16 ? ")" : "$)");
		} else if (f == IDF_FIRMWARE) {
			/* SATA: the kernel's revision is 4 characters of ATA's 8 (the last 4, or
			 * the first when those are blank). */
			buf_puts(out, "(?=.*^ID_REVISION=");
			buf_puts(out, transport && !strcmp(transport, "sata") ? "(.{4})?" : "");
			bad = tuned_value(out, text);
			buf_puts(out, "$)");
		} else if (f == IDF_VENDOR && !strcmp(fam, "scsi")) {
			buf_puts(out, "(?=.*^ID_VENDOR=");
			bad = tuned_value(out, text);
			buf_puts(out, "$)");
		} else if (f == IDF_SERIAL) {
			buf_puts(out, "(?=.*^ID_SERIAL_SHORT=");
			bad = tuned_value(out, text);
			buf_puts(out, "$)");
		} else {
			buf_printf(skipped, "%s%s (not a udev property)", skipped->len ? ", " : "",
			           key);
			continue;
		}
		if (bad)
			return value_refused(s, c, key, bad, false, e);
		n++;
	}
	return n;
}

/* The kernel-name pattern of a transport, or NULL. */
static const char *transport_pattern(const char *transport, bool udev)
{
	size_t k;

	for (k = 0; transport && k < sizeof(transport_names) / sizeof(transport_names[0]); k++)
		if (!strcmp(transport_names[k].transport, transport))
			return udev ? transport_names[k].udev : transport_names[k].tuned;
	return NULL;
}

/* "# cohort 2 of 3: model=... (10 nodes: n1, n2, n3, n4 and 6 more)". */
static void cohort_comment(const struct sweep *s, int c, struct buf *out)
{
	const struct sweep_cohort *co = &s->cohorts[c];
	struct buf key = BUF_INIT;
	int j, n = co->nnodes < 4 ? co->nnodes : 4;

	sweep_cohort_key(s, c, &key);
	buf_printf(out, "# cohort %d of %d: ", c + 1, s->ncohorts);
	comment_text(out, key.data ? key.data : "every node");
	buf_printf(out, " (%d node%s: ", co->nnodes, co->nnodes == 1 ? "" : "s");
	for (j = 0; j < n; j++) {
		buf_puts(out, j ? ", " : "");
		comment_text(out, s->plan.nodes[co->nodes[j]].name);
	}
	if (co->nnodes > n)
		buf_printf(out, " and %d more", co->nnodes - n);
	buf_puts(out, ")\n");
	buf_release(&key);
}

/* Whether decision d gives what to export: confirmed; or, asked for on purpose, unconfirmed. */
static bool decision_exports(const struct decision *d, enum export_what what)
{
	return d->state == DECISION_CONFIRMED ||
	       (what == EXPORT_UNCONFIRMED && d->state == DECISION_UNCONFIRMED);
}

/* The configuration cohort c keeps: its decision's (the sweep's with one cohort) when what
 * takes it; else the baseline (*best false). */
static const struct config *cohort_config(const struct sweep *s, int c, enum export_what what,
                                          bool *best)
{
	const struct decision *d = sweep_decision(s, c);

	*best = what != EXPORT_BASELINE && decision_exports(d, what);
	return *best ? &d->cfg : &s->plan.baseline;
}

/* tuned's disk plugin sets the scheduler (elevator) and read-ahead (readahead, KiB) of the
 * devices it matches; the other block parameters have no per-device option there and are
 * listed for the udev export. Returns whether c has sysctls. */
static bool tuned_disk(const struct config *c, struct buf *out)
{
	struct buf rest = BUF_INIT;
	bool sysctls = false;
	int i;

	for (i = 0; i < c->n; i++) {
		const struct setting *st = &c->s[i];

		if (fsparam_is(st->name))
			continue; /* made by jobs: filesystem_note */
		if (is_sysctl(st->name))
			sysctls = true;
		else if (!strcmp(st->name, "scheduler"))
			buf_printf(out, "elevator=%s\n", st->value);
		else if (!strcmp(st->name, "read_ahead_kb"))
			buf_printf(out, "readahead=%s\n", st->value);
		else if (!strcmp(st->name, "setra"))
			buf_printf(out, "readahead=%lld\n", strtoll(st->value, NULL, 10) / 2);
		else
			buf_printf(&rest, " %s=%s", st->name, st->value);
	}
	if (rest.len)
		buf_printf(out,
		           "# tuned sets no other block parameter per device: use export "
		           "--format udev for%s\n",
		           rest.data);
	buf_release(&rest);
	return sysctls;
}

/* One rule or profile of cohort c for its nodes of one transport. */
static int cohort_render(const struct sweep *s, int c, const char *transport, bool udev,
                         enum export_what what, struct buf *out, struct err *e)
{
	struct buf m = BUF_INIT, host = BUF_INIT, skipped = BUF_INIT, key = BUF_INIT;
	const struct config *cfg;
	const char *pattern = transport_pattern(transport, udev);
	const char *format = udev ? "udev" : "tuned";
	struct fsparam_fs fs;
	char ran[512] = "";
	bool best, sysctls;
	int n, rc = 0;

	cfg = cohort_config(s, c, what, &best);
	if (!best && what != EXPORT_BASELINE) {
		/* A permanent rule is never written for a baseline nobody chose. */
		cohort_comment(s, c, out);
		buf_puts(out, sweep_decision(s, c)->state == DECISION_UNCONFIRMED
		                      ? "# its configuration is not confirmed: no rule (export "
		                        "--unconfirmed writes it on purpose)\n\n"
		                      : "# no configuration gave it a significant gain: no rule "
		                        "(export --baseline writes the baseline on purpose)\n\n");
		goto out;
	}
	rc = export_check(s, cfg, false, format, e);
	if (rc == 0)
		rc = export_fs(s, cfg, format, &fs, ran, sizeof(ran), e);
	if (rc)
		goto out;
	n = cohort_matches(s, c, transport, udev, &m, &host, &skipped, e);
	if (n < 0) {
		rc = n;
		goto out;
	}
	if (n == 0 && !pattern) {
		sweep_cohort_key(s, c, &key);
		rc = err_set(e, -EINVAL, ERR_NO_MATCH,
		             "export: cohort %d (%s, %d node%s) has nothing a %s can match: its "
		             "devices report no model, firmware or transport",
		             c + 1, key.data ? key.data : "every node", s->cohorts[c].nnodes,
		             s->cohorts[c].nnodes == 1 ? "" : "s",
		             udev ? "udev rule" : "tuned profile");
		goto out;
	}
	if (!udev)
		buf_printf(out,
		           "# ---- profile fleettune-%lld-c%d: "
		           "/etc/tuned/fleettune-%lld-c%d/tuned.conf\n",
		           (long long)s->id, c + 1, (long long)s->id, c + 1);
	cohort_comment(s, c, out);
	buf_printf(out, "# %s\n",
	           !best ? "its baseline, on purpose"
	           : sweep_decision(s, c)->state == DECISION_CONFIRMED
	                   ? "its best configuration"
	                   : "its unconfirmed configuration");
	if (best)
		unconfirmed_comment(s, sweep_decision(s, c), out);
	if (host.len) {
		buf_puts(out, "# install only on hosts with ");
		comment_text(out, host.data);
		buf_puts(out, ": these are not properties of the device\n");
	}
	if (skipped.len) {
		buf_puts(out, "# not matched: ");
		comment_text(out, skipped.data);
		buf_puts(out, "\n");
	}
	if (n == 0)
		buf_printf(out, "# nothing else to match: every %s device\n", transport);
	if (udev) {
		buf_puts(out,
		         "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\"");
		if (n == 0)
			buf_printf(out, ", KERNEL==\"%s\"", pattern);
		buf_puts(out, m.data ? m.data : "");
		sysctls = assignments(cfg, true, NULL, out);
		buf_puts(out, "\n");
	} else {
		buf_printf(out, "[main]\nsummary=fleettune sweep %lld: cohort %d\n\n[disk]\n",
		           (long long)s->id, c + 1);
		if (n == 0)
			buf_printf(out, "devices_udev_regex=^DEVNAME=%s$\n", pattern);
		else
			buf_printf(out, "devices_udev_regex=(?s)\\A%s\n", m.data);
		sysctls = tuned_disk(cfg, out);
	}
	if (sysctls)
		sysctl_lines(cfg, udev, out);
	filesystem_note(&fs, ran, udev, out);
	buf_puts(out, "\n");
out:
	buf_release(&m);
	buf_release(&host);
	buf_release(&skipped);
	buf_release(&key);
	return rc;
}

/* Does any node's agent say what its device is? */
static bool identity_known(const struct sweep *s)
{
	int k, f;

	for (k = 0; s->identity && k < s->plan.nnodes; k++)
		for (f = 0; f < IDF_N; f++)
			if (s->identity[k].field[f])
				return true;
	return false;
}

int export_render(const struct sweep *s, const char *format, enum export_what what, struct buf *out,
                  struct err *e)
{
	bool udev = !strcmp(format, "udev"), baseline = what == EXPORT_BASELINE, any = false;
	struct buf body = BUF_INIT;
	int c, i, j, rc = 0;

	if (!udev && strcmp(format, "tuned"))
		return err_set(e, -EINVAL, ERR_BAD_FORMAT, "--format: '%s' is not udev or tuned",
		               format);
	/* A decision of the fleet, or of some cohort, that what takes. */
	any = decision_exports(&s->decision, what);
	for (c = 0; c < s->ncohorts && s->ncohorts >= 2; c++)
		any = any || decision_exports(&s->cohorts[c].decision, what);
	if (!baseline && !any)
		return err_set(e, -ENOENT, ERR_NO_BEST, "sweep %lld has no %s configuration",
		               (long long)s->id, what == EXPORT_BEST ? "confirmed" : "suggested");
	if (!identity_known(s) || s->ncohorts == 0) {
		if (!baseline && !decision_exports(&s->decision, what))
			return err_set(e, -ENOENT, ERR_NO_BEST,
			               "sweep %lld has no best configuration", (long long)s->id);
		return legacy_render(s, udev, what, out, e);
	}
	buf_printf(&body, "# fleettune sweep %lld \"", (long long)s->id);
	comment_text(&body, s->plan.name);
	buf_printf(&body, "\": %s\n# one %s per cohort (by ", what_words(what),
	           udev ? "rule" : "profile");
	for (j = 0; j < s->plan.ncohort_by; j++) {
		buf_puts(&body, j ? ", " : "");
		comment_text(&body, s->plan.cohort_by[j]);
	}
	buf_puts(&body, s->plan.ncohort_by ? ")\n" : "nothing)\n");
	buf_puts(&body, udev ? "# install as /etc/udev/rules.d/60-fleettune.rules\n\n"
	                     : "# each profile in its own directory; activate with tuned-adm "
	                       "profile NAME\n\n");
	/* A cohort's nodes may differ in transport when cohort_by does not name it: one rule per
	 * transport, since the attributes to match are the transport's. */
	for (c = 0; c < s->ncohorts && rc == 0; c++) {
		const struct sweep_cohort *co = &s->cohorts[c];

		for (i = 0; i < co->nnodes && rc == 0; i++) {
			const char *t = s->identity[co->nodes[i]].field[IDF_TRANSPORT];
			bool seen = false;

			for (j = 0; j < i && !seen; j++) {
				const char *u = s->identity[co->nodes[j]].field[IDF_TRANSPORT];

				seen = (!t && !u) || (t && u && !strcmp(t, u));
			}
			if (!seen)
				rc = cohort_render(s, c, t, udev, what, &body, e);
		}
	}
	if (rc == 0)
		buf_append(out, body.data, body.len);
	buf_release(&body);
	return rc;
}
