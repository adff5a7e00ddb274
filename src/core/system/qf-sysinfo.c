/* qf-sysinfo.c — reads hostname, CPU, memory and kernel facts from /proc and /sys, and which PC
 * this is (machine id, DMI names) (src/core).
 *
 * The root parameter lets tests point this at tests/core/fixtures/<pc>/; with root "/" the
 * running kernel is asked. uname(2) is not used for the kernel strings so that fixtures work:
 * /proc/sys/kernel/{osrelease,version,hostname} say the same. */
#include "config.h"

#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-sysinfo.h"
#include "qf-text.h"

char *
qf_sysfs_read_string (const char *root,
                      const char *path)
{
  g_autofree char *full = g_build_filename (root ? root : "/", path, NULL);
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (full, &contents, NULL, NULL))
    return NULL;
  return g_strdup (g_strstrip (contents));
}

static char *
read_cpu_model (const char *root,
                guint      *n_processors)
{
  g_autofree char *cpuinfo = qf_sysfs_read_string (root, "proc/cpuinfo");
  g_auto(GStrv) lines = NULL;
  char *model = NULL;

  *n_processors = 0;
  if (cpuinfo == NULL)
    return NULL;

  lines = g_strsplit (cpuinfo, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *colon = strchr (lines[i], ':');

      if (g_str_has_prefix (lines[i], "processor"))
        (*n_processors)++;
      if (model == NULL && colon != NULL &&
          (g_str_has_prefix (lines[i], "model name") || g_str_has_prefix (lines[i], "Model")))
        model = g_strdup (g_strstrip (colon + 1));
    }
  return model;
}

/* "0-3,6" → 5 */
static guint
count_cpu_list (const char *list)
{
  g_auto(GStrv) parts = NULL;
  guint n = 0;

  if (list == NULL || *list == '\0')
    return 0;
  parts = g_strsplit (list, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 lo, hi;
      char *end;

      lo = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i])
        continue;
      hi = (*end == '-') ? g_ascii_strtoull (end + 1, NULL, 10) : lo;
      if (hi >= lo)
        n += (guint) (hi - lo + 1);
    }
  return n;
}

static gint
compare_int (gconstpointer a,
             gconstpointer b)
{
  return *(const int *) a - *(const int *) b;
}

GArray *
qf_cpu_list_parse (const char  *list,
                   GError     **error)
{
  g_autoptr(GArray) cpus = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto(GStrv) parts = NULL;

  g_return_val_if_fail (list != NULL, NULL);

  parts = g_strsplit (list, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = g_strstrip (parts[i]);
      guint64 lo, hi;
      char *end;

      lo = g_ascii_strtoull (part, &end, 10);
      if (end == part || !g_ascii_isdigit (*part))
        goto bad;
      hi = lo;
      if (*end == '-')
        {
          const char *second = end + 1;
          hi = g_ascii_strtoull (second, &end, 10);
          if (end == second || !g_ascii_isdigit (*second))
            goto bad;
        }
      if (*end != '\0' || hi < lo || hi >= 8192)
        goto bad;
      for (guint64 cpu = lo; cpu <= hi; cpu++)
        {
          int value = (int) cpu;
          gboolean seen = FALSE;
          for (guint k = 0; k < cpus->len && !seen; k++)
            seen = g_array_index (cpus, int, k) == value;
          if (!seen)
            g_array_append_val (cpus, value);
        }
    }
  if (cpus->len == 0)
    goto bad;
  g_array_sort (cpus, compare_int);
  return g_steal_pointer (&cpus);

bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _("“%s” is not a CPU list; write it like 0-3,6"), list);
  return NULL;
}

static guint64
meminfo_kb (const char *meminfo,
            const char *key)
{
  g_autofree char *needle = g_strconcat ("\n", key, ":", NULL);
  const char *p;

  if (meminfo == NULL)
    return 0;
  if (g_str_has_prefix (meminfo, key) && meminfo[strlen (key)] == ':')
    p = meminfo + strlen (key) + 1;
  else if ((p = strstr (meminfo, needle)) != NULL)
    p += strlen (needle);
  else
    return 0;
  return g_ascii_strtoull (p, NULL, 10);
}

static char *
preempt_model (const char *root,
               const char *version,
               gboolean    rt)
{
  g_autofree char *dynamic = NULL;

  if (rt)
    return g_strdup ("PREEMPT_RT");

  /* /sys/kernel/debug/sched/preempt reads like "none (voluntary) full": the choice in ( ). */
  dynamic = qf_sysfs_read_string (root, "sys/kernel/debug/sched/preempt");
  if (dynamic != NULL)
    {
      const char *open = strchr (dynamic, '(');
      const char *close = open ? strchr (open, ')') : NULL;

      if (open && close)
        {
          g_autofree char *mode = g_strndup (open + 1, close - open - 1);
          return g_strdup_printf ("PREEMPT_DYNAMIC (%s)", mode);
        }
    }
  if (version != NULL)
    {
      if (strstr (version, "PREEMPT_DYNAMIC") != NULL)
        {
          /* Without debugfs, a preempt= on the command line still says which mode was chosen. */
          g_autofree char *cmdline = qf_sysfs_read_string (root, "proc/cmdline");
          g_auto(GStrv) tokens = cmdline ? g_strsplit_set (cmdline, " \t\n", -1) : NULL;
          const char *mode = NULL;

          for (guint i = 0; tokens != NULL && tokens[i] != NULL; i++)
            {
              if (g_str_equal (tokens[i], "--"))
                break;
              if (g_str_has_prefix (tokens[i], "preempt="))
                mode = tokens[i] + strlen ("preempt=");
            }
          if (mode != NULL && *mode != '\0')
            return g_strdup_printf ("PREEMPT_DYNAMIC (%s)", mode);
          return g_strdup ("PREEMPT_DYNAMIC");
        }
      if (strstr (version, "PREEMPT ") != NULL || g_str_has_suffix (version, "PREEMPT"))
        return g_strdup ("PREEMPT");
    }
  return g_strdup ("none");
}

static char *
read_machine_id_hash (const char *root)
{
  g_autofree char *id = qf_sysfs_read_string (root, "etc/machine-id");

  if (id == NULL || *id == '\0')
    return NULL;
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, id, -1);
}

static void
read_identity (QfSysinfo  *info,
               const char *root)
{
  info->machine_id_sha256 = read_machine_id_hash (root);
  info->dmi_vendor = qf_sysfs_read_string (root, "sys/class/dmi/id/sys_vendor");
  info->dmi_product = qf_sysfs_read_string (root, "sys/class/dmi/id/product_name");
  info->dmi_serial = qf_sysfs_read_string (root, "sys/class/dmi/id/product_serial");
}

void
qf_os_release_parse (const char  *text,
                     QfOsRelease *os)
{
  g_auto(GStrv) lines = NULL;
  g_autofree char *ubuntu_codename = NULL;

  g_return_if_fail (os != NULL);
  if (text == NULL)
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      char *eq = strchr (line, '=');
      char **slot = NULL;
      char *value;

      if (*line == '#' || eq == NULL)
        continue;
      *eq = '\0';
      if (g_str_equal (line, "ID"))
        slot = &os->id;
      else if (g_str_equal (line, "VERSION_ID"))
        slot = &os->version_id;
      else if (g_str_equal (line, "VERSION_CODENAME"))
        slot = &os->codename;
      else if (g_str_equal (line, "UBUNTU_CODENAME"))
        slot = &ubuntu_codename;
      else if (g_str_equal (line, "PRETTY_NAME"))
        slot = &os->pretty_name;
      if (slot == NULL || (value = g_shell_unquote (eq + 1, NULL)) == NULL)
        continue;
      g_free (*slot);
      *slot = *value != '\0' ? qf_text_clean (value, -1) : NULL;
      g_free (value);
    }
  if (os->codename == NULL)
    os->codename = g_steal_pointer (&ubuntu_codename);
}

void
qf_os_release_clear (QfOsRelease *os)
{
  g_clear_pointer (&os->id, g_free);
  g_clear_pointer (&os->version_id, g_free);
  g_clear_pointer (&os->codename, g_free);
  g_clear_pointer (&os->pretty_name, g_free);
}

char *
qf_os_release_describe (const char *id,
                        const char *version_id,
                        const char *codename,
                        const char *pretty_name)
{
  g_autofree char *name = NULL;

  if (pretty_name != NULL)
    name = g_strdup (pretty_name);
  else if (id != NULL)
    name = version_id != NULL ? g_strdup_printf ("%s %s", id, version_id) : g_strdup (id);
  else if (codename == NULL)
    return NULL;
  if (name == NULL)
    return g_strdup (codename);
  if (codename != NULL && strstr (name, codename) == NULL)
    return g_strdup_printf ("%s (%s)", name, codename);
  return g_steal_pointer (&name);
}

static void
read_os_release (QfSysinfo  *info,
                 const char *root)
{
  g_autofree char *text = qf_sysfs_read_string (root, "etc/os-release");

  if (text == NULL)
    text = qf_sysfs_read_string (root, "usr/lib/os-release");
  qf_os_release_parse (text, &info->os);
}

/* The names a PC gives itself (host name, DMI strings from the firmware or a hypervisor, the
 * CPU's brand string, the kernel's) are printed and stored as text: control characters in them
 * would reach a terminal (qf_text_clean). */
static void
clean_text (char **text)
{
  char *clean;

  if (*text == NULL)
    return;
  clean = qf_text_clean (*text, -1);
  g_free (*text);
  *text = clean;
}

static void
clean_identity (QfSysinfo *info)
{
  clean_text (&info->hostname);
  clean_text (&info->cpu_model);
  clean_text (&info->kernel_release);
  clean_text (&info->kernel_version);
  clean_text (&info->dmi_vendor);
  clean_text (&info->dmi_product);
  clean_text (&info->dmi_serial);
}

QfSysinfo *
qf_sysinfo_read (const char  *root,
                 GError     **error)
{
  g_autoptr(QfSysinfo) info = g_new0 (QfSysinfo, 1);
  g_autofree char *meminfo = NULL;
  g_autofree char *online = NULL;
  g_autofree char *realtime = NULL;
  guint n_processors = 0;

  if (root == NULL)
    root = "/";

  info->kernel_release = qf_sysfs_read_string (root, "proc/sys/kernel/osrelease");
  if (info->kernel_release == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("Cannot read %s/proc/sys/kernel/osrelease: is /proc mounted?"),
                   g_str_equal (root, "/") ? "" : root);
      return NULL;
    }
  info->kernel_version = qf_sysfs_read_string (root, "proc/sys/kernel/version");
  info->hostname = qf_sysfs_read_string (root, "proc/sys/kernel/hostname");
  if (info->hostname == NULL)
    info->hostname = g_strdup (g_get_host_name ());

  info->cpu_model = read_cpu_model (root, &n_processors);
  if (info->cpu_model == NULL)
    info->cpu_model = g_strdup (_("unknown"));
  online = qf_sysfs_read_string (root, "sys/devices/system/cpu/online");
  info->cpu_count = count_cpu_list (online);
  if (info->cpu_count == 0)
    info->cpu_count = n_processors;

  meminfo = qf_sysfs_read_string (root, "proc/meminfo");
  info->mem_total_kb = meminfo_kb (meminfo, "MemTotal");
  info->mem_available_kb = meminfo_kb (meminfo, "MemAvailable");

  realtime = qf_sysfs_read_string (root, "sys/kernel/realtime");
  info->preempt_rt = (realtime != NULL && g_str_equal (realtime, "1")) ||
                     (info->kernel_version != NULL && strstr (info->kernel_version, "PREEMPT_RT"));
  info->preempt_model = preempt_model (root, info->kernel_version, info->preempt_rt);
  read_identity (info, root);
  read_os_release (info, root);
  clean_identity (info);

  return g_steal_pointer (&info);
}

void
qf_sysinfo_free (QfSysinfo *info)
{
  if (info == NULL)
    return;
  g_free (info->hostname);
  g_free (info->cpu_model);
  g_free (info->kernel_release);
  g_free (info->kernel_version);
  g_free (info->preempt_model);
  g_free (info->machine_id_sha256);
  g_free (info->dmi_vendor);
  g_free (info->dmi_product);
  g_free (info->dmi_serial);
  qf_os_release_clear (&info->os);
  g_free (info);
}

JsonObject *
qf_sysinfo_to_json (const QfSysinfo *info)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "hostname", info->hostname);
  json_object_set_string_member (obj, "cpu_model", info->cpu_model);
  json_object_set_int_member (obj, "cpu_count", info->cpu_count);
  json_object_set_int_member (obj, "mem_total_kb", (gint64) info->mem_total_kb);
  json_object_set_int_member (obj, "mem_available_kb", (gint64) info->mem_available_kb);
  json_object_set_string_member (obj, "kernel_release", info->kernel_release);
  json_object_set_string_member (obj, "kernel_version",
                                 info->kernel_version ? info->kernel_version : "");
  json_object_set_boolean_member (obj, "preempt_rt", info->preempt_rt);
  json_object_set_string_member (obj, "preempt_model", info->preempt_model);
  if (info->os.id != NULL || info->os.version_id != NULL || info->os.codename != NULL ||
      info->os.pretty_name != NULL)
    {
      JsonObject *os = json_object_new ();

      qf_json_set_string_or_null (os, "id", info->os.id);
      qf_json_set_string_or_null (os, "version_id", info->os.version_id);
      qf_json_set_string_or_null (os, "codename", info->os.codename);
      qf_json_set_string_or_null (os, "pretty_name", info->os.pretty_name);
      json_object_set_object_member (obj, "os", os);
    }
  else
    json_object_set_null_member (obj, "os");
  return obj;
}

JsonObject *
qf_sysinfo_to_pc_json (const QfSysinfo *info)
{
  JsonObject *obj = qf_sysinfo_to_json (info);

  qf_json_set_string_or_null (obj, "machine_id_sha256", info->machine_id_sha256);
  qf_json_set_string_or_null (obj, "dmi_vendor", info->dmi_vendor);
  qf_json_set_string_or_null (obj, "dmi_product", info->dmi_product);
  qf_json_set_string_or_null (obj, "dmi_serial", info->dmi_serial);
  return obj;
}
