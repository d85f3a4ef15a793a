/* identity.h -- what a block device is and what its host is, read (never written) below the
 * sysfs root: vendor, model, firmware revision, serial, WWID, transport,
 * rotational, block sizes and size; the kernel release, the DMI product name and the hostname.
 * A file the kernel does not have is an absent field, never an error. */
#ifndef FT_IDENTITY_H
#define FT_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sysfs.h"
#include "err.h"

#define IDENTITY_TEXT_MAX 128

/*
 * A device's identity. Text fields are "" when absent; they hold the kernel's text with
 * blanks trimmed at both ends and every byte outside printable ASCII replaced by '?' (so the
 * text is valid JSON and, in a udev match, '?' still matches the byte it stands for).
 * Where each comes from (below ROOT/sys/block/DEV):
 *   scsi, sata, sas, usb: device/vendor, device/model, device/rev, device/wwid, the serial
 *                         from device/vpd_pg80 (the unit serial number page);
 *   nvme:                 device/model, device/firmware_rev, device/serial, wwid;
 *   virtio:               device/vendor, serial;  mmc: device/name, device/fwrev, device/serial;
 *   loop, dm, md:         none of these.
 * transport: the subsystem of device/ (nvme, virtio, mmc, scsi refined by the resolved device
 * path to sata, sas or usb), else loop, dm or md from the device's own directories; NULL when
 * none of these. Every device: queue/rotational, queue/logical_block_size,
 * queue/physical_block_size and size (512-byte sectors).
 */
struct device_identity {
	char vendor[IDENTITY_TEXT_MAX];
	char model[IDENTITY_TEXT_MAX];
	char firmware[IDENTITY_TEXT_MAX];
	char serial[IDENTITY_TEXT_MAX]; /* "sha256:" and 16 hex digits with hide_serial */
	char wwid[2 * IDENTITY_TEXT_MAX];
	const char *transport; /* static word, or NULL */
	bool has_rotational;
	bool rotational;
	uint32_t logical_block_bytes;  /* 0: absent */
	uint32_t physical_block_bytes; /* 0: absent */
	bool has_size;
	uint64_t size_bytes;
};

/* The host the agent runs on; "" when absent. kernel: ROOT/proc/sys/kernel/osrelease (what
 * uname -r prints), machine: ROOT/sys/class/dmi/id/product_name, hostname:
 * ROOT/proc/sys/kernel/hostname. */
struct host_identity {
	char kernel[IDENTITY_TEXT_MAX];
	char machine[IDENTITY_TEXT_MAX];
	char hostname[IDENTITY_TEXT_MAX * 2];
};

/* dev's identity into out. hide_serial: the serial is reported as its stable hash
 * (identity_serial_hash). -EINVAL "bad_request" or -ENOENT "not_found" as
 * sysfs_device_check gives them; nothing else fails. */
int identity_device_read(const struct sysfs *fs, const char *dev, bool hide_serial,
                         struct device_identity *out, struct err *e);
/* The host's identity into out; never fails. */
void identity_host_read(const struct sysfs *fs, struct host_identity *out);
/* "sha256:" and the first 16 hex digits of SHA-256("fleettune-serial:" SERIAL): the same on
 * every agent for the same serial, so hidden serials still tell devices apart. A pseudonym,
 * not a secret: a serial is short enough to be guessed from it. */
void identity_serial_hash(const char *serial, char *out, size_t len);

#endif
