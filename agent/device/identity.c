/* identity.c -- what each block device and the host are: read (never written) below the
 * sysfs root, as sysfs.c reads; sysfs.c stays the only code that writes /sys. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/identity.h"
#include "num.h"
#include "protocol.h"
#include "sha256.h"
#include "banned.h"

enum id_field { ID_VENDOR, ID_MODEL, ID_FIRMWARE, ID_SERIAL, ID_WWID };

/* Transport families whose identity files are laid out alike. */
enum id_family { FAM_SCSI, FAM_NVME, FAM_VIRTIO, FAM_MMC, FAM_NONE };

/* Where each family keeps each text field, below sys/block/DEV. */
static const struct {
	enum id_family fam;
	enum id_field field;
	const char *rel;
} id_files[] = {
	{ FAM_SCSI, ID_VENDOR, "device/vendor" },
	{ FAM_SCSI, ID_MODEL, "device/model" },
	{ FAM_SCSI, ID_FIRMWARE, "device/rev" },
	{ FAM_SCSI, ID_WWID, "device/wwid" },
	{ FAM_NVME, ID_MODEL, "device/model" },
	{ FAM_NVME, ID_FIRMWARE, "device/firmware_rev" },
	{ FAM_NVME, ID_SERIAL, "device/serial" },
	{ FAM_NVME, ID_WWID, "wwid" },
	{ FAM_VIRTIO, ID_VENDOR, "device/vendor" },
	{ FAM_VIRTIO, ID_SERIAL, "serial" },
	{ FAM_MMC, ID_MODEL, "device/name" },
	{ FAM_MMC, ID_FIRMWARE, "device/fwrev" },
	{ FAM_MMC, ID_SERIAL, "device/serial" },
};

/* The subsystem of device/ (the basename of its link) and the family and word it gives;
 * "scsi" is refined from the device's path. */
static const struct {
	const char *subsystem;
	enum id_family fam;
	const char *transport;
} subsystems[] = {
	{ "scsi", FAM_SCSI, "scsi" },           { "nvme", FAM_NVME, "nvme" },
	{ "nvme-subsystem", FAM_NVME, "nvme" }, /* a native-multipath namespace */
	{ "virtio", FAM_VIRTIO, "virtio" },     { "mmc", FAM_MMC, "mmc" },
};

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ROOT/rel into path. */
static void root_path(const struct sysfs *fs, const char *rel, char *path, size_t len)
{
	size_t rl = strlen(fs->root);

	snprintf(path, len, "%s%s%s", fs->root, rl && fs->root[rl - 1] == '/' ? "" : "/", rel);
}

/* The small file ROOT/rel into out (zero-filled first, so a binary page reads to its end);
 * 0 or -errno. */
static int file_read(const struct sysfs *fs, const char *rel, char *out, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, rc = 0;

	memset(out, 0, len);
	root_path(fs, rel, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, out, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* The link ROOT/rel: as written (readlink), or with resolve every link followed and given as
 * a path below ROOT ("/devices/pci0000:00/.../0:0:0:0"); 0, -errno, -EXDEV out of ROOT. */
static int link_read(const struct sysfs *fs, const char *rel, bool resolve, char *out, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], root[PATH_MAX];
	size_t rl;
	ssize_t n;

	root_path(fs, rel, path, sizeof(path));
	if (!resolve) {
		n = readlink(path, out, len - 1);
		if (n < 0)
			return -errno;
		out[n] = '\0';
		return 0;
	}
	if (!realpath(path, real) || !realpath(fs->root, root))
		return -errno;
	rl = strcmp(root, "/") ? strlen(root) : 0;
	if (strncmp(real, root, rl) || (real[rl] && real[rl] != '/'))
		return -EXDEV;
	snprintf(out, len, "%s", real + rl);
	return 0;
}

/* Read sys/block/DEV/TAIL (any root-relative path with dev "") into out, cleaned; "" when
 * absent or unreadable. */
static void text_read(const struct sysfs *fs, const char *dev, const char *tail, char *out,
                      size_t len)
{
	char rel[512];

	if (*dev)
		snprintf(rel, sizeof(rel), "sys/block/%s/%s", dev, tail);
	else
		snprintf(rel, sizeof(rel), "%s", tail);
	if (file_read(fs, rel, out, len) < 0)
		out[0] = '\0';
	identity_text_clean(out);
}

/* A non-negative integer attribute of dev; false when absent or not a number. */
static bool int_read(const struct sysfs *fs, const char *dev, const char *tail, int64_t *v)
{
	char val[64];

	text_read(fs, dev, tail, val, sizeof(val));
	return val[0] && !num_parse_kernel_i64(val, v) && *v >= 0;
}

/* The unit serial number VPD page (0x80) as the kernel exposes it: a 4-byte header (page code
 * at byte 1, length at bytes 2-3) and the serial, often padded with blanks. */
static void vpd80_serial(const struct sysfs *fs, const char *dev, char *out, size_t len)
{
	unsigned char page[260];
	char rel[128];
	size_t n, i;

	out[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/block/%s/device/vpd_pg80", dev);
	if (file_read(fs, rel, (char *)page, sizeof(page)) < 0 || page[1] != 0x80)
		return;
	n = (size_t)page[2] << 8 | page[3];
	if (n > sizeof(page) - 5)
		n = sizeof(page) - 5;
	for (i = 0; i < n && i + 1 < len && page[4 + i]; i++)
		out[i] = (char)page[4 + i];
	out[i] = '\0';
	identity_text_clean(out);
}

/* The transport word and family of dev. */
static const char *transport_of(const struct sysfs *fs, const char *dev, enum id_family *fam)
{
	char rel[128], link[512], path[1024], val[64];
	const char *base;
	size_t i;

	*fam = FAM_NONE;
	snprintf(rel, sizeof(rel), "sys/block/%s/device/subsystem", dev);
	if (link_read(fs, rel, false, link, sizeof(link)) == 0) {
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		for (i = 0; i < N_ELEM(subsystems); i++) {
			if (strcmp(subsystems[i].subsystem, base))
				continue;
			*fam = subsystems[i].fam;
			if (*fam != FAM_SCSI)
				return subsystems[i].transport;
			snprintf(rel, sizeof(rel), "sys/block/%s/device", dev);
			if (link_read(fs, rel, true, path, sizeof(path)))
				path[0] = '\0';
			if (strstr(path, "/usb"))
				return "usb";
			text_read(fs, dev, "device/sas_address", val, sizeof(val));
			if (val[0] || strstr(path, "/end_device-"))
				return "sas";
			for (base = strstr(path, "/ata"); base; base = strstr(base + 1, "/ata"))
				if (base[4] >= '0' && base[4] <= '9')
					return "sata";
			return "scsi";
		}
		return NULL;
	}
	text_read(fs, dev, "dm/name", val, sizeof(val));
	if (val[0])
		return "dm";
	text_read(fs, dev, "md/level", val, sizeof(val));
	if (val[0])
		return "md";
	text_read(fs, dev, "loop/backing_file", path, sizeof(path));
	if (path[0] || !strncmp(dev, "loop", 4))
		return "loop";
	return NULL;
}

void identity_serial_hash(const char *serial, char *out, size_t len)
{
	char msg[IDENTITY_TEXT_MAX + 32], hex[65];
	int n = snprintf(msg, sizeof(msg), "fleettune-serial:%s", serial);

	sha256_hex(msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1, hex);
	snprintf(out, len, "sha256:%.16s", hex);
}

int identity_device_read(const struct sysfs *fs, const char *dev, bool hide_serial,
                         struct device_identity *out, struct err *e)
{
	enum id_family fam;
	int64_t v;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sysfs_device_check(fs, dev, e);
	if (rc)
		return rc;
	out->transport = transport_of(fs, dev, &fam);
	for (i = 0; i < N_ELEM(id_files); i++) {
		char *dst = NULL;
		size_t n = IDENTITY_TEXT_MAX;

		if (id_files[i].fam != fam)
			continue;
		switch (id_files[i].field) {
		case ID_VENDOR:
			dst = out->vendor;
			break;
		case ID_MODEL:
			dst = out->model;
			break;
		case ID_FIRMWARE:
			dst = out->firmware;
			break;
		case ID_SERIAL:
			dst = out->serial;
			break;
		case ID_WWID:
			dst = out->wwid;
			n = sizeof(out->wwid);
			break;
		}
		text_read(fs, dev, id_files[i].rel, dst, n);
	}
	if (fam == FAM_SCSI)
		vpd80_serial(fs, dev, out->serial, sizeof(out->serial));
	if (hide_serial && out->serial[0])
		identity_serial_hash(out->serial, out->serial, sizeof(out->serial));
	if (int_read(fs, dev, "queue/rotational", &v) && v <= 1) {
		out->has_rotational = true;
		out->rotational = v == 1;
	}
	if (int_read(fs, dev, "queue/logical_block_size", &v) && v <= UINT32_MAX)
		out->logical_block_bytes = (uint32_t)v;
	if (int_read(fs, dev, "queue/physical_block_size", &v) && v <= UINT32_MAX)
		out->physical_block_bytes = (uint32_t)v;
	if (int_read(fs, dev, "size", &v) && v <= INT64_MAX / 512) {
		out->has_size = true;
		out->size_bytes = (uint64_t)v * 512;
	}
	return 0;
}

void identity_host_read(const struct sysfs *fs, struct host_identity *out)
{
	text_read(fs, "", "proc/sys/kernel/osrelease", out->kernel, sizeof(out->kernel));
	text_read(fs, "", "sys/class/dmi/id/product_name", out->machine, sizeof(out->machine));
	text_read(fs, "", "proc/sys/kernel/hostname", out->hostname, sizeof(out->hostname));
}
