/* qf-sysinfo.h — the PC's identity as the report and `qualify-cli sysinfo` show it (src/core).
 * Everything is read below a root directory ("/" normally) so tests can use fixture trees. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The release the PC runs, from os-release(5): /etc/os-release, else /usr/lib/os-release.
 * Each member NULL when the file does not say it. */
typedef struct
{
  char    *id;               /* ID: "debian", "ubuntu" */
  char    *version_id;       /* VERSION_ID: "12", "24.04"; none on Debian testing */
  char    *codename;         /* VERSION_CODENAME, else UBUNTU_CODENAME: "bookworm", "noble" */
  char    *pretty_name;      /* PRETTY_NAME: "Ubuntu 24.04.1 LTS" */
} QfOsRelease;

typedef struct
{
  char    *hostname;
  char    *cpu_model;
  guint    cpu_count;        /* logical CPUs online */
  guint64  mem_total_kb;
  guint64  mem_available_kb;
  char    *kernel_release;   /* uname -r */
  char    *kernel_version;   /* uname -v: build string, says PREEMPT / PREEMPT_RT / PREEMPT_DYNAMIC */
  gboolean preempt_rt;       /* /sys/kernel/realtime is 1, or the version string says PREEMPT_RT */
  char    *preempt_model;    /* "PREEMPT_RT", "PREEMPT_DYNAMIC (none)", "PREEMPT", "none", … */
  /* which PC this is, for telling sessions apart; NULL when unreadable */
  char    *machine_id_sha256; /* SHA-256 of /etc/machine-id: the same PC, not the id itself */
  char    *dmi_vendor;       /* /sys/class/dmi/id/sys_vendor */
  char    *dmi_product;      /* …/product_name */
  char    *dmi_serial;       /* …/product_serial (root only) */
  QfOsRelease os;
} QfSysinfo;

QfSysinfo  *qf_sysinfo_read      (const char      *root,
                                  GError         **error);
void        qf_sysinfo_free      (QfSysinfo       *info);
/* hostname … preempt_model, and "os": {id, version_id, codename, pretty_name} (null members
 * when os-release does not say them; "os" null when there is no os-release file). */
JsonObject *qf_sysinfo_to_json   (const QfSysinfo *info);
/* A session's "pc": qf_sysinfo_to_json's members, then machine_id_sha256, dmi_vendor,
 * dmi_product and dmi_serial (null when unreadable). */
JsonObject *qf_sysinfo_to_pc_json (const QfSysinfo *info);

/* Fills os from the text of an os-release file (KEY=value lines, values shell-quoted). */
void        qf_os_release_parse  (const char      *text,
                                  QfOsRelease     *os);
void        qf_os_release_clear  (QfOsRelease     *os);
/* "Ubuntu 24.04.1 LTS (noble)": PRETTY_NAME, else ID and VERSION_ID, with the codename when the
 * name does not hold it; NULL when nothing is known. */
char       *qf_os_release_describe (const char    *id,
                                    const char    *version_id,
                                    const char    *codename,
                                    const char    *pretty_name);

/* Small readers shared by the audit: the first line (or whole file) under root, stripped. */
char       *qf_sysfs_read_string (const char      *root,
                                  const char      *path);

/* Parses a kernel CPU list ("0-3,6", as in isolcpus= or /sys/.../online) into a sorted array of
 * unique int CPU numbers. NULL with error (G_IO_ERROR_INVALID_ARGUMENT) on malformed input. */
GArray     *qf_cpu_list_parse    (const char      *list,
                                  GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfSysinfo, qf_sysinfo_free)

G_END_DECLS
