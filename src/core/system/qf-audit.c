/* qf-audit.c — the real-time readiness audit (src/core); see qf-audit.h for the API and ids.
 *
 * Every fact is read from files below the root directory, never from system calls, so a fixture
 * tree (tests/core/fixtures/<pc>/) audits exactly like a live PC. Thresholds follow what moves
 * cyclictest's figures on a robot controller: idle-state exit latencies add directly to a
 * wake-up, a changing CPU clock and transparent huge page compaction add jitter, and a
 * non-preemptible kernel delays the real-time thread behind kernel work. */
#include "config.h"

#include <string.h>

#include "qf-audit.h"
#include "qf-i18n.h"
#include "qf-rt-kernel.h"
#include "qf-sysinfo.h"

/* Exit latencies (µs) from which an enabled idle state is a concern. */
#define IDLE_WARN_US 20
#define IDLE_FAIL_US 100

typedef struct
{
  const char  *root;
  GPtrArray   *checks;
  QfSysinfo   *info;
  GStrv        cmdline;        /* kernel parameters before "--" */
  GArray      *cpus;           /* online CPU numbers */
  char        *meminfo;
  gint64       deepest_idle_us; /* -1: unknown */
} Audit;

void
qf_audit_check_free (QfAuditCheck *check)
{
  if (check == NULL)
    return;
  g_free (check->id);
  g_free (check->title);
  g_free (check->value);
  g_free (check->advice);
  g_free (check);
}

const char *
qf_audit_status_to_string (QfAuditStatus status)
{
  switch (status)
    {
    case QF_AUDIT_OK:
      return "ok";
    case QF_AUDIT_WARN:
      return "warn";
    case QF_AUDIT_FAIL:
      return "fail";
    case QF_AUDIT_UNKNOWN:
    default:
      return "unknown";
    }
}

static int
severity (QfAuditStatus status)
{
  switch (status)
    {
    case QF_AUDIT_OK:
      return 0;
    case QF_AUDIT_UNKNOWN:
      return 1;
    case QF_AUDIT_WARN:
      return 2;
    case QF_AUDIT_FAIL:
    default:
      return 3;
    }
}

QfAuditStatus
qf_audit_worst (GPtrArray *checks)
{
  QfAuditStatus worst = QF_AUDIT_OK;

  g_return_val_if_fail (checks != NULL, QF_AUDIT_UNKNOWN);
  for (guint i = 0; i < checks->len; i++)
    {
      QfAuditCheck *check = g_ptr_array_index (checks, i);
      if (severity (check->status) > severity (worst))
        worst = check->status;
    }
  return worst;
}

QfAuditCheck *
qf_audit_find (GPtrArray  *checks,
               const char *id)
{
  g_return_val_if_fail (checks != NULL && id != NULL, NULL);
  for (guint i = 0; i < checks->len; i++)
    {
      QfAuditCheck *check = g_ptr_array_index (checks, i);
      if (g_str_equal (check->id, id))
        return check;
    }
  return NULL;
}

JsonArray *
qf_audit_to_json (GPtrArray *checks)
{
  JsonArray *array = json_array_new ();

  g_return_val_if_fail (checks != NULL, array);
  for (guint i = 0; i < checks->len; i++)
    {
      QfAuditCheck *check = g_ptr_array_index (checks, i);
      JsonObject *obj = json_object_new ();

      json_object_set_string_member (obj, "id", check->id);
      json_object_set_string_member (obj, "title", check->title);
      json_object_set_string_member (obj, "value", check->value);
      json_object_set_string_member (obj, "status", qf_audit_status_to_string (check->status));
      json_object_set_string_member (obj, "advice", check->advice);
      json_array_add_object_element (array, obj);
    }
  return array;
}

static void
add (Audit         *audit,
     const char    *id,
     const char    *title,
     char          *value,     /* taken */
     QfAuditStatus  status,
     const char    *advice)
{
  QfAuditCheck *check = g_new0 (QfAuditCheck, 1);

  check->id = g_strdup (id);
  check->title = g_strdup (title);
  check->value = value ? value : g_strdup (_("unknown"));
  check->status = status;
  check->advice = g_strdup (advice);
  g_ptr_array_add (audit->checks, check);
}

static char *
read_file (Audit      *audit,
           const char *path)
{
  return qf_sysfs_read_string (audit->root, path);
}

static gboolean
read_int (Audit      *audit,
          const char *path,
          gint64     *out)
{
  g_autofree char *text = read_file (audit, path);
  char *end;

  if (text == NULL || *text == '\0')
    return FALSE;
  *out = g_ascii_strtoll (text, &end, 10);
  return end != text;
}

/* "always [madvise] never" → "madvise" */
static char *
bracketed (const char *text)
{
  const char *open = text ? strchr (text, '[') : NULL;
  const char *close = open ? strchr (open, ']') : NULL;

  if (open == NULL || close == NULL)
    return text ? g_strdup (text) : NULL;
  return g_strndup (open + 1, close - open - 1);
}

static guint64
meminfo_kb (const char *meminfo,
            const char *key,
            gboolean   *found)
{
  g_autofree char *needle = g_strconcat ("\n", key, ":", NULL);
  const char *p = NULL;

  *found = FALSE;
  if (meminfo == NULL)
    return 0;
  if (g_str_has_prefix (meminfo, key) && meminfo[strlen (key)] == ':')
    p = meminfo + strlen (key) + 1;
  else if ((p = strstr (meminfo, needle)) != NULL)
    p += strlen (needle);
  if (p == NULL)
    return 0;
  *found = TRUE;
  return g_ascii_strtoull (p, NULL, 10);
}

/* The value of kernel parameter `key` (the last one wins, as in the kernel): "" for a bare flag,
 * NULL when absent. */
static const char *
cmdline_param (Audit      *audit,
               const char *key)
{
  const char *value = NULL;
  gsize len = strlen (key);

  for (guint i = 0; audit->cmdline != NULL && audit->cmdline[i] != NULL; i++)
    {
      const char *token = audit->cmdline[i];

      if (strncmp (token, key, len) != 0)
        continue;
      if (token[len] == '=')
        value = token + len + 1;
      else if (token[len] == '\0')
        value = "";
    }
  return value;
}

static void
read_cmdline (Audit *audit)
{
  g_autofree char *text = read_file (audit, "proc/cmdline");
  g_auto(GStrv) tokens = NULL;
  GPtrArray *kept;

  if (text == NULL)
    return;
  tokens = g_strsplit_set (text, " \t\n", -1);
  kept = g_ptr_array_new ();
  for (guint i = 0; tokens[i] != NULL; i++)
    {
      if (g_str_equal (tokens[i], "--"))
        break;   /* the rest belongs to init */
      if (*tokens[i] != '\0')
        g_ptr_array_add (kept, g_strdup (tokens[i]));
    }
  g_ptr_array_add (kept, NULL);
  audit->cmdline = (GStrv) g_ptr_array_free (kept, FALSE);
}

static void
check_kernel (Audit *audit)
{
  const char *model = audit->info->preempt_model;
  g_autofree char *install = qf_rt_kernel_advice (audit->info->os.id, audit->info->os.version_id);
  g_autofree char *advice = NULL;
  QfAuditStatus status;

  add (audit, "kernel.release", _("Kernel"), g_strdup (audit->info->kernel_release), QF_AUDIT_OK,
       _("The kernel this PC runs; the report names it beside every measurement."));

  if (audit->info->preempt_rt)
    {
      status = QF_AUDIT_OK;
      advice = g_strdup (_("A fully preemptible real-time kernel (PREEMPT_RT): the robot "
                           "controller’s threads get the CPU even while the kernel is busy."));
    }
  else if (g_str_equal (model, "PREEMPT_DYNAMIC"))
    {
      status = QF_AUDIT_WARN;
      advice = g_strjoin (" ", _("The kernel chooses its preemption model at boot and the active "
                                 "one could not be read (it shows under /sys/kernel/debug with "
                                 "debugfs mounted). Boot with preempt=full at least; better, use "
                                 "a PREEMPT_RT kernel."), install, NULL);
    }
  else if (g_str_equal (model, "PREEMPT") || g_str_equal (model, "PREEMPT_DYNAMIC (full)"))
    {
      status = QF_AUDIT_WARN;
      advice = g_strjoin (" ", _("A preemptible but not real-time kernel: long kernel sections "
                                 "can still delay the robot controller."), install, NULL);
    }
  else
    {
      status = QF_AUDIT_FAIL;
      advice = g_strjoin (" ", _("The kernel does not preempt its own work, so the robot "
                                 "controller waits behind it. Boot with preempt=full at least; "
                                 "better, use a PREEMPT_RT kernel."), install, NULL);
    }
  add (audit, "kernel.preempt", _("Preemption model"), g_strdup (model), status, advice);
}

static void
check_cmdline_list (Audit      *audit,
                    const char *key,
                    const char *title,
                    const char *advice_set,
                    const char *advice_missing_isolated,
                    const char *advice_missing)
{
  g_autofree char *id = g_strconcat ("cmdline.", key, NULL);
  gboolean isolated = cmdline_param (audit, "isolcpus") != NULL;
  const char *value;

  if (audit->cmdline == NULL)
    {
      add (audit, id, title, NULL, QF_AUDIT_UNKNOWN, _("The kernel command line could not be read."));
      return;
    }
  value = cmdline_param (audit, key);
  if (value != NULL)
    add (audit, id, title, g_strdup (*value ? value : _("set")), QF_AUDIT_OK, advice_set);
  else if (g_str_equal (key, "isolcpus") || isolated)
    add (audit, id, title, g_strdup (_("not set")), QF_AUDIT_WARN,
         isolated ? advice_missing_isolated : advice_missing);
  else
    add (audit, id, title, g_strdup (_("not set")), QF_AUDIT_OK, advice_missing);
}

static void
check_cmdline (Audit *audit)
{
  const char *value;

  check_cmdline_list (audit, "isolcpus", _("Isolated CPUs (isolcpus)"),
                      _("These CPUs are kept free of ordinary work: pin the robot controller’s "
                        "real-time threads to them."),
                      NULL,
                      _("No CPU is reserved for the robot controller. Reserving one with "
                        "isolcpus=, nohz_full= and rcu_nocbs= (same CPU list) on the kernel "
                        "command line keeps other work off it."));
  check_cmdline_list (audit, "nohz_full", _("Tickless CPUs (nohz_full)"),
                      _("The timer tick stops on these CPUs while one task runs there."),
                      _("CPUs are isolated but still take the timer tick: add nohz_full= with "
                        "the same CPU list as isolcpus=."),
                      _("Only useful together with isolcpus=; nothing to do without isolated CPUs."));
  check_cmdline_list (audit, "rcu_nocbs", _("RCU callbacks offloaded (rcu_nocbs)"),
                      _("RCU callback work is moved off these CPUs."),
                      _("CPUs are isolated but still run RCU callbacks: add rcu_nocbs= with the "
                        "same CPU list as isolcpus=."),
                      _("Only useful together with isolcpus=; nothing to do without isolated CPUs."));
  check_cmdline_list (audit, "irqaffinity", _("Interrupt CPUs (irqaffinity)"),
                      _("Device interrupts go to these CPUs by default."),
                      _("CPUs are isolated but interrupts may still land on them: add "
                        "irqaffinity= listing the CPUs that are not isolated."),
                      _("Only useful together with isolcpus=; nothing to do without isolated CPUs."));

  if (audit->cmdline == NULL)
    {
      const char *keys[] = { "idle", "intel_idle.max_cstate", "processor.max_cstate", "mitigations" };
      const char *titles[] = { _("Idle loop (idle=)"), _("Intel idle states limit"),
                               _("ACPI idle states limit"), _("CPU vulnerability mitigations") };
      for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
        {
          g_autofree char *id = g_strconcat ("cmdline.", keys[i], NULL);
          add (audit, id, titles[i], NULL, QF_AUDIT_UNKNOWN,
               _("The kernel command line could not be read."));
        }
      return;
    }

  value = cmdline_param (audit, "idle");
  if (value != NULL && g_str_equal (value, "poll"))
    add (audit, "cmdline.idle", _("Idle loop (idle=)"), g_strdup (value), QF_AUDIT_OK,
         _("Idle CPUs spin instead of sleeping: the fastest wake-up, at the cost of power and "
           "heat."));
  else
    add (audit, "cmdline.idle", _("Idle loop (idle=)"),
         g_strdup (value ? value : _("not set")), QF_AUDIT_OK,
         _("Idle CPUs may sleep; the idle-state checks below say how deeply."));

  for (guint i = 0; i < 2; i++)
    {
      const char *key = i == 0 ? "intel_idle.max_cstate" : "processor.max_cstate";
      const char *title = i == 0 ? _("Intel idle states limit") : _("ACPI idle states limit");
      g_autofree char *id = g_strconcat ("cmdline.", key, NULL);

      value = cmdline_param (audit, key);
      if (value != NULL)
        add (audit, id, title, g_strdup (value), QF_AUDIT_OK,
             _("Deep idle states are limited on the kernel command line."));
      else if (audit->deepest_idle_us > IDLE_WARN_US)
        add (audit, id, title, g_strdup (_("not set")), QF_AUDIT_WARN,
             _("Deep idle states are enabled and slow to wake from. Limit them with "
               "intel_idle.max_cstate=1 processor.max_cstate=1 on the kernel command line, or "
               "in the firmware setup."));
      else
        add (audit, id, title, g_strdup (_("not set")), QF_AUDIT_OK,
             _("No slow idle state is enabled, so no limit is needed."));
    }

  value = cmdline_param (audit, "mitigations");
  if (value != NULL && g_str_equal (value, "off"))
    add (audit, "cmdline.mitigations", _("CPU vulnerability mitigations"), g_strdup (value),
         QF_AUDIT_OK,
         _("Mitigations are off: system calls are faster, but only trusted software should run "
           "on this PC."));
  else
    add (audit, "cmdline.mitigations", _("CPU vulnerability mitigations"),
         g_strdup (value ? value : _("default (on)")), QF_AUDIT_OK,
         _("Mitigations make system calls slower. Turning them off (mitigations=off) helps "
           "latency but is only wise on a PC that runs trusted software."));
}

static void
read_online_cpus (Audit *audit)
{
  g_autofree char *online = read_file (audit, "sys/devices/system/cpu/online");

  audit->cpus = online ? qf_cpu_list_parse (online, NULL) : NULL;
  if (audit->cpus == NULL)
    {
      audit->cpus = g_array_new (FALSE, FALSE, sizeof (int));
      for (int i = 0; i < (int) audit->info->cpu_count; i++)
        g_array_append_val (audit->cpus, i);
    }
}

static void
check_cpu (Audit *audit)
{
  g_autoptr(GHashTable) cores = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *smt_active = NULL;
  g_autofree char *smt_control = NULL;
  guint n_cpus = audit->cpus->len;

  add (audit, "cpu.model", _("Processor"), g_strdup (audit->info->cpu_model), QF_AUDIT_OK,
       _("The processor model, for the report."));

  for (guint i = 0; i < n_cpus; i++)
    {
      int cpu = g_array_index (audit->cpus, int, i);
      g_autofree char *pkg_path = g_strdup_printf ("sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
      g_autofree char *core_path = g_strdup_printf ("sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
      g_autofree char *pkg = read_file (audit, pkg_path);
      g_autofree char *core = read_file (audit, core_path);

      if (pkg != NULL && core != NULL)
        g_hash_table_add (cores, g_strdup_printf ("%s/%s", pkg, core));
    }
  {
    char *value;

    if (g_hash_table_size (cores) > 0)
      value = g_strdup_printf (_("%u logical CPUs on %u cores"), n_cpus, g_hash_table_size (cores));
    else
      value = g_strdup_printf (_("%u logical CPUs"), n_cpus);
    add (audit, "cpu.cores", _("CPU cores"), value, n_cpus >= 2 ? QF_AUDIT_OK : QF_AUDIT_WARN,
         n_cpus >= 2
           ? _("Enough CPUs to keep the robot controller apart from other work.")
           : _("A single CPU shares everything with the robot controller; use a PC with at "
               "least two cores."));
  }

  smt_active = read_file (audit, "sys/devices/system/cpu/smt/active");
  smt_control = read_file (audit, "sys/devices/system/cpu/smt/control");
  if (smt_control != NULL && (g_str_equal (smt_control, "notsupported") ||
                              g_str_equal (smt_control, "notimplemented")))
    add (audit, "cpu.smt", _("Simultaneous multithreading"), g_strdup (_("not supported")),
         QF_AUDIT_OK, _("The processor has one thread per core."));
  else if (smt_active != NULL && g_str_equal (smt_active, "1"))
    add (audit, "cpu.smt", _("Simultaneous multithreading"), g_strdup (_("on")), QF_AUDIT_WARN,
         _("Two threads share each core and slow each other down unpredictably. Turn "
           "Hyper-Threading/SMT off in the firmware setup, or boot with nosmt."));
  else if (smt_active != NULL && g_str_equal (smt_active, "0"))
    add (audit, "cpu.smt", _("Simultaneous multithreading"), g_strdup (_("off")), QF_AUDIT_OK,
         _("Each core runs one thread, so the robot controller has its core to itself."));
  else
    add (audit, "cpu.smt", _("Simultaneous multithreading"), NULL, QF_AUDIT_UNKNOWN,
         _("The kernel does not say whether SMT is on."));
}

/* DMI vendor or product names that only virtual machines carry. */
static const char *const vm_dmi_names[] = {
  "QEMU", "KVM", "VMware", "VirtualBox", "innotek", "Xen", "Bochs", "Parallels",
  "Virtual Machine", "Amazon EC2", "Google Compute Engine", "OpenStack", "BHYVE", "Firecracker",
};

/* Whether /proc/cpuinfo's first flags line has "hypervisor": 1, 0, or -1 without a flags line. */
static gint
cpuinfo_hypervisor (Audit *audit)
{
  g_autofree char *cpuinfo = NULL;
  g_autofree char *path = g_build_filename (audit->root, "proc/cpuinfo", NULL);
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (path, &cpuinfo, NULL, NULL))
    return -1;
  lines = g_strsplit (cpuinfo, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      g_auto(GStrv) flags = NULL;

      if (!g_str_has_prefix (lines[i], "flags") || colon == NULL)
        continue;
      flags = g_strsplit_set (colon + 1, " \t", -1);
      return g_strv_contains ((const char *const *) flags, "hypervisor") ? 1 : 0;
    }
  return -1;
}

/* The name of a virtual machine in the DMI vendor or product, or NULL. */
static const char *
dmi_vm_name (const char *vendor,
             const char *product)
{
  for (guint i = 0; i < G_N_ELEMENTS (vm_dmi_names); i++)
    if ((vendor != NULL && strstr (vendor, vm_dmi_names[i]) != NULL)
        || (product != NULL && strstr (product, vm_dmi_names[i]) != NULL))
      return vm_dmi_names[i];
  return NULL;
}

gboolean
qf_audit_is_virtual_machine (const char *root)
{
  Audit audit = { .root = root != NULL ? root : "/" };
  g_autofree char *vendor = read_file (&audit, "sys/class/dmi/id/sys_vendor");
  g_autofree char *product = read_file (&audit, "sys/class/dmi/id/product_name");

  return cpuinfo_hypervisor (&audit) == 1 || dmi_vm_name (vendor, product) != NULL;
}

static void
check_virtualization (Audit *audit)
{
  const char *title = _("Virtual machine");
  g_autofree char *vendor = read_file (audit, "sys/class/dmi/id/sys_vendor");
  g_autofree char *product = read_file (audit, "sys/class/dmi/id/product_name");
  gint flag = cpuinfo_hypervisor (audit);
  const char *dmi_vm = dmi_vm_name (vendor, product);
  g_autoptr(GString) value = g_string_new (NULL);

  if (flag == 1)
    g_string_append (value, _("the CPU reports a hypervisor"));
  if (vendor != NULL || product != NULL)
    /* TRANSLATORS: "DMI: QEMU Standard PC (Q35 + ICH9, 2009)" */
    g_string_append_printf (value, _("%sDMI: %s %s"), value->len ? "; " : "",
                            vendor != NULL ? vendor : "", product != NULL ? product : "");

  if (flag == 1 || dmi_vm != NULL)
    add (audit, "virtualization", title, g_string_free (g_steal_pointer (&value), FALSE), QF_AUDIT_WARN,
         _("This PC is a virtual machine. Inside a virtual machine every latency figure includes "
           "the host’s scheduling, so the results describe the host as much as this system. "
           "Qualify the robot controller on the real hardware it will run on."));
  else if (flag == 0 || vendor != NULL || product != NULL)
    add (audit, "virtualization", title,
         value->len ? g_string_free (g_steal_pointer (&value), FALSE) : g_strdup (_("no hypervisor")),
         QF_AUDIT_OK, _("The PC runs on its own hardware, so the figures are its own."));
  else
    add (audit, "virtualization", title, NULL, QF_AUDIT_UNKNOWN,
         _("Neither the CPU flags nor the firmware’s DMI data could be read, so Qualify cannot "
           "tell whether this is a virtual machine."));
}

static void
check_governor (Audit *audit)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) value = g_string_new (NULL);
  g_autoptr(GList) names = NULL;
  guint n_read = 0, n_performance = 0;

  for (guint i = 0; i < audit->cpus->len; i++)
    {
      int cpu = g_array_index (audit->cpus, int, i);
      g_autofree char *path = g_strdup_printf ("sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
      char *governor = read_file (audit, path);

      if (governor == NULL)
        continue;
      n_read++;
      if (g_str_equal (governor, "performance"))
        n_performance++;
      g_hash_table_replace (counts, governor,
                            GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, governor)) + 1));
    }

  if (n_read == 0)
    {
      add (audit, "cpu.governor", _("CPU frequency governor"), g_strdup (_("not exposed")),
           QF_AUDIT_UNKNOWN,
           _("The kernel offers no frequency scaling control (common in virtual machines, or "
             "when the firmware controls the clock). Check the firmware’s power settings."));
      return;
    }

  names = g_list_sort (g_hash_table_get_keys (counts), (GCompareFunc) g_strcmp0);
  for (GList *l = names; l != NULL; l = l->next)
    {
      if (value->len)
        g_string_append (value, ", ");
      /* TRANSLATORS: "powersave on 4 of 4 CPUs" */
      g_string_append_printf (value, _("%s on %u of %u CPUs"), (const char *) l->data,
                              GPOINTER_TO_UINT (g_hash_table_lookup (counts, l->data)),
                              audit->cpus->len);
    }
  if (n_performance == n_read)
    add (audit, "cpu.governor", _("CPU frequency governor"), g_string_free (g_steal_pointer (&value), FALSE),
         QF_AUDIT_OK, _("The CPUs run at full speed and do not change clock while the robot runs."));
  else
    add (audit, "cpu.governor", _("CPU frequency governor"), g_string_free (g_steal_pointer (&value), FALSE),
         QF_AUDIT_WARN,
         _("The CPU clock changes with load, which delays and varies the robot controller’s "
           "response. Select the performance governor (cpupower frequency-set -g performance)."));
}

typedef struct
{
  char  *name;
  gint64 latency_us;
} IdleState;

static void
idle_state_clear (gpointer data)
{
  g_free (((IdleState *) data)->name);
}

static void
read_idle_states (Audit  *audit,
                  GArray *states)
{
  audit->deepest_idle_us = -1;
  for (guint i = 0; i < audit->cpus->len; i++)
    {
      int cpu = g_array_index (audit->cpus, int, i);

      for (guint s = 0; s < 32; s++)
        {
          g_autofree char *dir = g_strdup_printf ("sys/devices/system/cpu/cpu%d/cpuidle/state%u", cpu, s);
          g_autofree char *name_path = g_strconcat (dir, "/name", NULL);
          g_autofree char *latency_path = g_strconcat (dir, "/latency", NULL);
          g_autofree char *disable_path = g_strconcat (dir, "/disable", NULL);
          g_autofree char *name = read_file (audit, name_path);
          gint64 latency_us, disabled = 0;
          gboolean known = FALSE;

          if (name == NULL)
            break;
          if (!read_int (audit, latency_path, &latency_us))
            continue;
          read_int (audit, disable_path, &disabled);
          if (audit->deepest_idle_us < 0)
            audit->deepest_idle_us = 0;
          if (disabled)
            continue;
          audit->deepest_idle_us = MAX (audit->deepest_idle_us, latency_us);
          for (guint k = 0; k < states->len; k++)
            {
              IdleState *known_state = &g_array_index (states, IdleState, k);
              if (g_str_equal (known_state->name, name))
                {
                  known_state->latency_us = MAX (known_state->latency_us, latency_us);
                  known = TRUE;
                }
            }
          if (!known)
            {
              IdleState state = { g_steal_pointer (&name), latency_us };
              g_array_append_val (states, state);
            }
        }
    }
}

static void
check_idle_states (Audit  *audit,
                   GArray *states)
{
  g_autoptr(GString) value = g_string_new (NULL);
  QfAuditStatus status;
  const char *advice;

  if (audit->deepest_idle_us < 0)
    {
      add (audit, "cpu.idle_states", _("CPU idle states"), g_strdup (_("not exposed")),
           QF_AUDIT_UNKNOWN,
           _("The kernel lists no idle states; check the C-state settings in the firmware setup."));
      return;
    }
  for (guint k = 0; k < states->len; k++)
    {
      IdleState *state = &g_array_index (states, IdleState, k);
      if (value->len)
        g_string_append (value, ", ");
      g_string_append_printf (value, "%s %lld µs", state->name, (long long) state->latency_us);
    }
  if (states->len == 0)
    g_string_append (value, _("all disabled"));

  if (audit->deepest_idle_us > IDLE_FAIL_US)
    {
      status = QF_AUDIT_FAIL;
      advice = _("Deep idle states are enabled: a sleeping CPU needs this long to wake up, and "
                 "the robot controller waits for it. Disable C-states deeper than C1 in the "
                 "firmware setup or with intel_idle.max_cstate=1 processor.max_cstate=1.");
    }
  else if (audit->deepest_idle_us > IDLE_WARN_US)
    {
      status = QF_AUDIT_WARN;
      advice = _("Some enabled idle states take tens of microseconds to wake from. Limit them "
                 "in the firmware setup or with intel_idle.max_cstate=1.");
    }
  else
    {
      status = QF_AUDIT_OK;
      advice = _("Every enabled idle state wakes up quickly.");
    }
  add (audit, "cpu.idle_states", _("CPU idle states"), g_string_free (g_steal_pointer (&value), FALSE),
       status, advice);
}

static void
check_sched_rt (Audit *audit)
{
  gint64 runtime;

  if (!read_int (audit, "proc/sys/kernel/sched_rt_runtime_us", &runtime))
    add (audit, "sched.rt_runtime", _("Real-time throttling"), NULL, QF_AUDIT_UNKNOWN,
         _("/proc/sys/kernel/sched_rt_runtime_us could not be read."));
  else if (runtime < 0)
    add (audit, "sched.rt_runtime", _("Real-time throttling"), g_strdup (_("off (-1)")),
         QF_AUDIT_OK,
         _("Real-time threads are never throttled; a runaway one can starve the whole PC."));
  else if (runtime >= 950000)
    add (audit, "sched.rt_runtime", _("Real-time throttling"),
         g_strdup_printf (_("%lld µs per second"), (long long) runtime), QF_AUDIT_OK,
         _("Real-time threads may use up to 0.95 s of each second; the rest is kept for the "
           "system."));
  else
    add (audit, "sched.rt_runtime", _("Real-time throttling"),
         g_strdup_printf (_("%lld µs per second"), (long long) runtime), QF_AUDIT_WARN,
         _("Real-time threads are stopped early in each second. Set "
           "kernel.sched_rt_runtime_us back to 950000 with sysctl."));
}

static void
check_thp (Audit *audit)
{
  g_autofree char *text = read_file (audit, "sys/kernel/mm/transparent_hugepage/enabled");
  g_autofree char *mode = bracketed (text);

  if (mode == NULL)
    add (audit, "mm.thp", _("Transparent huge pages"), NULL, QF_AUDIT_UNKNOWN,
         _("The transparent huge page mode could not be read."));
  else if (g_str_equal (mode, "always"))
    add (audit, "mm.thp", _("Transparent huge pages"), g_strdup (mode), QF_AUDIT_WARN,
         _("The kernel compacts memory behind running programs, which causes latency spikes. "
           "Use madvise or never (transparent_hugepage=madvise on the kernel command line)."));
  else
    add (audit, "mm.thp", _("Transparent huge pages"), g_strdup (mode), QF_AUDIT_OK,
         _("Huge pages are only used where programs ask for them."));
}

static void
check_clocksource (Audit *audit)
{
  g_autofree char *source =
    read_file (audit, "sys/devices/system/clocksource/clocksource0/current_clocksource");

  if (source == NULL)
    add (audit, "clocksource", _("Clock source"), NULL, QF_AUDIT_UNKNOWN,
         _("The current clock source could not be read."));
  else if (g_str_equal (source, "jiffies") || g_str_equal (source, "refined-jiffies"))
    add (audit, "clocksource", _("Clock source"), g_strdup (source), QF_AUDIT_FAIL,
         _("Time is counted in timer ticks, far too coarse for real-time work. Check the "
           "kernel log for why the TSC or HPET was rejected."));
  else if (g_str_equal (source, "hpet") || g_str_equal (source, "acpi_pm"))
    add (audit, "clocksource", _("Clock source"), g_strdup (source), QF_AUDIT_WARN,
         _("Reading this clock is slow, which adds to every timing measurement. The kernel "
           "usually falls back to it when the TSC is unstable; check the firmware settings."));
  else
    add (audit, "clocksource", _("Clock source"), g_strdup (source), QF_AUDIT_OK,
         _("A fast, precise clock."));
}

static void
check_irqbalance (Audit *audit)
{
  g_autofree char *proc = g_build_filename (audit->root, "proc", NULL);
  g_autoptr(GDir) dir = g_dir_open (proc, 0, NULL);
  const char *name;
  gint64 pid = 0;
  guint n_processes = 0;

  if (dir == NULL)
    {
      add (audit, "irqbalance", _("irqbalance"), NULL, QF_AUDIT_UNKNOWN,
           _("The process list could not be read."));
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL && pid == 0)
    {
      g_autofree char *path = NULL;
      g_autofree char *comm = NULL;

      if (!g_ascii_isdigit (*name))
        continue;
      n_processes++;
      path = g_build_filename ("proc", name, "comm", NULL);
      comm = read_file (audit, path);
      if (comm != NULL && g_str_equal (comm, "irqbalance"))
        pid = g_ascii_strtoll (name, NULL, 10);
    }
  if (n_processes == 0)
    add (audit, "irqbalance", _("irqbalance"), NULL, QF_AUDIT_UNKNOWN,
         _("The process list could not be read."));
  else if (pid != 0)
    add (audit, "irqbalance", _("irqbalance"),
         g_strdup_printf (_("running (PID %lld)"), (long long) pid), QF_AUDIT_WARN,
         _("irqbalance moves device interrupts between CPUs while the robot runs. Stop it "
           "(systemctl disable --now irqbalance), or keep it off the real-time CPUs with "
           "IRQBALANCE_BANNED_CPULIST."));
  else
    add (audit, "irqbalance", _("irqbalance"), g_strdup (_("not running")), QF_AUDIT_OK,
         _("Interrupts stay where the kernel or the administrator put them."));
}

static char *
format_kb (guint64 kb)
{
  return g_format_size_full (kb * 1024, G_FORMAT_SIZE_IEC_UNITS);
}

static void
check_memory (Audit *audit)
{
  gboolean have_total, have_free, have_mem, have_avail;
  guint64 swap_total = meminfo_kb (audit->meminfo, "SwapTotal", &have_total);
  guint64 swap_free = meminfo_kb (audit->meminfo, "SwapFree", &have_free);
  guint64 mem_total = meminfo_kb (audit->meminfo, "MemTotal", &have_mem);
  guint64 mem_avail = meminfo_kb (audit->meminfo, "MemAvailable", &have_avail);

  if (!have_total || !have_free)
    add (audit, "swap", _("Swap"), NULL, QF_AUDIT_UNKNOWN, _("/proc/meminfo says nothing about swap."));
  else if (swap_total == 0)
    add (audit, "swap", _("Swap"), g_strdup (_("none")), QF_AUDIT_OK,
         _("No swap: nothing is ever paged out to disk."));
  else if (swap_total > swap_free)
    {
      g_autofree char *used = format_kb (swap_total - swap_free);
      g_autofree char *total = format_kb (swap_total);
      /* TRANSLATORS: "12.0 MiB of 2.0 GiB in use" */
      add (audit, "swap", _("Swap"), g_strdup_printf (_("%s of %s in use"), used, total),
           QF_AUDIT_WARN,
           _("Memory has been paged out to disk; a program touching it waits for the disk. Add "
             "memory, or stop what fills it; the robot controller should lock its memory."));
    }
  else
    {
      g_autofree char *total = format_kb (swap_total);
      add (audit, "swap", _("Swap"), g_strdup_printf (_("%s, none in use"), total), QF_AUDIT_OK,
           _("Swap exists but nothing is paged out."));
    }

  if (!have_mem || mem_total == 0)
    add (audit, "memory", _("Memory"), NULL, QF_AUDIT_UNKNOWN, _("/proc/meminfo could not be read."));
  else
    {
      g_autofree char *total = format_kb (mem_total);
      g_autofree char *avail = format_kb (mem_avail);
      gboolean low = have_avail && mem_avail * 10 < mem_total;

      /* TRANSLATORS: "15.5 GiB, 11.4 GiB available" */
      add (audit, "memory", _("Memory"), g_strdup_printf (_("%s, %s available"), total, avail),
           low ? QF_AUDIT_WARN : QF_AUDIT_OK,
           low ? _("Less than a tenth of the memory is free; the PC may soon page out. Close "
                   "programs or add memory.")
               : _("Enough free memory."));
    }
}

GPtrArray *
qf_audit_run (const char  *root,
              GError     **error)
{
  g_autoptr(GPtrArray) checks = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_audit_check_free);
  g_autoptr(QfSysinfo) info = NULL;
  g_autoptr(GArray) idle_states = g_array_new (FALSE, TRUE, sizeof (IdleState));
  Audit audit = { 0 };

  if (root == NULL)
    root = "/";
  info = qf_sysinfo_read (root, error);
  if (info == NULL)
    return NULL;

  g_array_set_clear_func (idle_states, idle_state_clear);
  audit.root = root;
  audit.checks = checks;
  audit.info = info;
  audit.meminfo = read_file (&audit, "proc/meminfo");
  read_cmdline (&audit);
  read_online_cpus (&audit);
  read_idle_states (&audit, idle_states);

  check_kernel (&audit);
  check_cmdline (&audit);
  check_cpu (&audit);
  check_virtualization (&audit);
  check_governor (&audit);
  check_idle_states (&audit, idle_states);
  check_sched_rt (&audit);
  check_thp (&audit);
  check_clocksource (&audit);
  check_irqbalance (&audit);
  check_memory (&audit);

  g_strfreev (audit.cmdline);
  g_array_unref (audit.cpus);
  g_free (audit.meminfo);
  return g_steal_pointer (&checks);
}
