/* test-audit.c — the readiness audit against fixture PCs: an RT-ready controller, a stock
 * desktop (powersave, deep C-states, SMT, THP always, irqbalance, swap in use) and a bare tree
 * where almost nothing is readable (tests/core). */
#include "config.h"

#include <string.h>

#include "qf-audit.h"
#include "qf-sysinfo.h"
#include "qf-test-release.h"

static const char *all_ids[] = {
  "kernel.release", "kernel.preempt",
  "cmdline.isolcpus", "cmdline.nohz_full", "cmdline.rcu_nocbs", "cmdline.irqaffinity",
  "cmdline.idle", "cmdline.intel_idle.max_cstate", "cmdline.processor.max_cstate",
  "cmdline.mitigations",
  "cpu.model", "cpu.cores", "cpu.smt", "virtualization", "cpu.governor", "cpu.idle_states",
  "sched.rt_runtime", "mm.thp", "clocksource", "irqbalance", "swap", "memory",
};

typedef struct
{
  const char   *id;
  QfAuditStatus status;
  const char   *value_contains;   /* NULL: not checked */
} Expect;

static GPtrArray *
audit_fixture (const char *name)
{
  g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", name, NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *checks = qf_audit_run (root, &error);

  g_assert_no_error (error);
  g_assert_nonnull (checks);
  return checks;
}

static void
assert_complete (GPtrArray *checks)
{
  g_assert_cmpuint (checks->len, ==, G_N_ELEMENTS (all_ids));
  for (guint i = 0; i < G_N_ELEMENTS (all_ids); i++)
    {
      QfAuditCheck *check = g_ptr_array_index (checks, i);

      g_assert_cmpstr (check->id, ==, all_ids[i]);
      g_assert_nonnull (check->title);
      g_assert_nonnull (check->value);
      g_assert_nonnull (check->advice);
      g_assert_cmpuint (strlen (check->advice), >, 10);
    }
}

static void
assert_expected (GPtrArray    *checks,
                 const Expect *expect,
                 guint         n)
{
  for (guint i = 0; i < n; i++)
    {
      QfAuditCheck *check = qf_audit_find (checks, expect[i].id);

      g_assert_nonnull (check);
      if (check->status != expect[i].status)
        g_error ("%s: status %s (value “%s”), expected %s", check->id,
                 qf_audit_status_to_string (check->status), check->value,
                 qf_audit_status_to_string (expect[i].status));
      if (expect[i].value_contains != NULL && strstr (check->value, expect[i].value_contains) == NULL)
        g_error ("%s: value “%s” lacks “%s”", check->id, check->value, expect[i].value_contains);
    }
}

static void
test_rt_pc (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("rt-pc");
  const Expect expect[] = {
    { "kernel.release", QF_AUDIT_OK, "6.1.0-27-rt-amd64" },
    { "kernel.preempt", QF_AUDIT_OK, "PREEMPT_RT" },
    { "cmdline.isolcpus", QF_AUDIT_OK, "6-7" },
    { "cmdline.nohz_full", QF_AUDIT_OK, "6-7" },
    { "cmdline.rcu_nocbs", QF_AUDIT_OK, "6-7" },
    { "cmdline.irqaffinity", QF_AUDIT_OK, "0-5" },
    { "cmdline.intel_idle.max_cstate", QF_AUDIT_OK, "1" },
    { "cmdline.processor.max_cstate", QF_AUDIT_OK, "1" },
    { "cpu.model", QF_AUDIT_OK, "Atom" },
    { "cpu.cores", QF_AUDIT_OK, "8" },
    { "cpu.smt", QF_AUDIT_OK, NULL },
    { "virtualization", QF_AUDIT_OK, "no hypervisor" },
    { "cpu.governor", QF_AUDIT_OK, "performance on 8 of 8" },
    { "cpu.idle_states", QF_AUDIT_OK, "C1 1 µs" },
    { "sched.rt_runtime", QF_AUDIT_OK, "950000" },
    { "mm.thp", QF_AUDIT_OK, "never" },
    { "clocksource", QF_AUDIT_OK, "tsc" },
    { "irqbalance", QF_AUDIT_OK, NULL },
    { "swap", QF_AUDIT_OK, NULL },
    { "memory", QF_AUDIT_OK, NULL },
  };

  assert_complete (checks);
  assert_expected (checks, expect, G_N_ELEMENTS (expect));
  /* The disabled C6 state is not listed as enabled. */
  g_assert_null (strstr (qf_audit_find (checks, "cpu.idle_states")->value, "C6"));
  g_assert_cmpint (qf_audit_worst (checks), ==, QF_AUDIT_OK);
}

static void
test_stock_desktop (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("stock-desktop");
  const Expect expect[] = {
    { "kernel.preempt", QF_AUDIT_FAIL, "voluntary" },
    { "cmdline.isolcpus", QF_AUDIT_WARN, NULL },
    { "cmdline.nohz_full", QF_AUDIT_OK, NULL },      /* only matters with isolcpus */
    { "cmdline.intel_idle.max_cstate", QF_AUDIT_WARN, NULL },
    { "cmdline.processor.max_cstate", QF_AUDIT_WARN, NULL },
    { "cmdline.mitigations", QF_AUDIT_OK, NULL },
    { "cpu.cores", QF_AUDIT_OK, "on 2 cores" },
    { "cpu.smt", QF_AUDIT_WARN, NULL },
    { "cpu.governor", QF_AUDIT_WARN, "powersave on 4 of 4" },
    { "cpu.idle_states", QF_AUDIT_FAIL, "C10 890 µs" },
    { "sched.rt_runtime", QF_AUDIT_OK, NULL },
    { "mm.thp", QF_AUDIT_WARN, "always" },
    { "irqbalance", QF_AUDIT_WARN, "977" },
    { "swap", QF_AUDIT_WARN, NULL },
    { "memory", QF_AUDIT_OK, NULL },
  };

  assert_complete (checks);
  assert_expected (checks, expect, G_N_ELEMENTS (expect));
  g_assert_cmpint (qf_audit_worst (checks), ==, QF_AUDIT_FAIL);
}

/* A tree with only the kernel identity: every other check says UNKNOWN instead of guessing. */
static void
test_bare (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("bare");
  const char *unknown[] = {
    "cmdline.isolcpus", "cmdline.mitigations", "cpu.smt", "virtualization", "cpu.governor",
    "cpu.idle_states",
    "sched.rt_runtime", "mm.thp", "clocksource", "irqbalance", "swap", "memory",
  };

  assert_complete (checks);
  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    g_assert_cmpint (qf_audit_find (checks, unknown[i])->status, ==, QF_AUDIT_UNKNOWN);
  /* No PREEMPT in the version string: a non-preemptible kernel. */
  g_assert_cmpint (qf_audit_find (checks, "kernel.preempt")->status, ==, QF_AUDIT_FAIL);
}

/* PREEMPT_DYNAMIC without debugfs: the preempt= boot parameter names the mode (and what follows
 * "--" belongs to init, not the kernel). */
static void
test_dynamic_full (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("dynamic-full");
  QfAuditCheck *preempt = qf_audit_find (checks, "kernel.preempt");

  assert_complete (checks);
  g_assert_cmpstr (preempt->value, ==, "PREEMPT_DYNAMIC (full)");
  g_assert_cmpint (preempt->status, ==, QF_AUDIT_WARN);
}

static void
test_not_a_tree (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "no-such-pc", NULL);
  GPtrArray *checks = qf_audit_run (root, &error);

  g_assert_null (checks);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "osrelease"));
}

static void
test_json (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("stock-desktop");
  g_autoptr(JsonArray) array = qf_audit_to_json (checks);

  g_assert_cmpuint (json_array_get_length (array), ==, checks->len);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *obj = json_array_get_object_element (array, i);
      const char *status = json_object_get_string_member (obj, "status");
      QfAuditCheck *check = g_ptr_array_index (checks, i);

      g_assert_cmpstr (json_object_get_string_member (obj, "id"), ==, check->id);
      g_assert_cmpstr (json_object_get_string_member (obj, "value"), ==, check->value);
      g_assert_cmpstr (json_object_get_string_member (obj, "advice"), ==, check->advice);
      g_assert_true (json_object_has_member (obj, "title"));
      g_assert_true (g_strv_contains ((const char *[]) { "ok", "warn", "fail", "unknown", NULL },
                                      status));
    }
}

/* A KVM guest: the CPU's hypervisor flag and QEMU's DMI names both say so. */
static void
test_vm_guest (void)
{
  g_autoptr(GPtrArray) checks = audit_fixture ("vm-guest");
  QfAuditCheck *vm = qf_audit_find (checks, "virtualization");

  assert_complete (checks);
  g_assert_cmpint (vm->status, ==, QF_AUDIT_WARN);
  g_assert_nonnull (strstr (vm->value, "hypervisor"));
  g_assert_nonnull (strstr (vm->value, "QEMU"));
  g_assert_nonnull (strstr (vm->advice, "host’s scheduling"));
  /* what the trace's sentences ask (qf-step-trace): the same answer as the check */
  for (guint i = 0; i < 3; i++)
    {
      const char *name = (const char *[]) { "vm-guest", "rt-pc", "stock-desktop" }[i];
      g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", name, NULL);

      g_assert_cmpint (qf_audit_is_virtual_machine (root), ==, i == 0);
    }
}

/* This machine, judged from its own /proc/cpuinfo read here independently: a virtual machine
 * (this project's test machines are) must be told so. */
static void
test_this_pc_vm (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) checks = qf_audit_run ("/", &error);
  g_autofree char *cpuinfo = NULL;
  QfAuditCheck *vm;

  g_assert_no_error (error);
  vm = qf_audit_find (checks, "virtualization");
  g_assert_nonnull (vm);
  g_assert_true (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL));
  if (g_regex_match_simple ("^flags\\s*:.*\\bhypervisor\\b", cpuinfo, G_REGEX_MULTILINE, 0))
    {
      g_assert_cmpint (vm->status, ==, QF_AUDIT_WARN);
      g_assert_nonnull (strstr (vm->value, "hypervisor"));
    }
  else
    g_test_message ("not a virtual machine by its CPU flags: %s", vm->value);
}

/* The live PC: every check is there, whatever this machine is. */
static void
test_this_pc (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) checks = qf_audit_run ("/", &error);

  g_assert_no_error (error);
  assert_complete (checks);
}

static void
test_cpu_list (void)
{
  g_autoptr(GArray) cpus = qf_cpu_list_parse ("6,0-2, 4,1", NULL);
  const int expected[] = { 0, 1, 2, 4, 6 };
  const char *bad[] = { "", "a", "3-1", "1-", "-1", "1,,2", "0-99999" };

  g_assert_nonnull (cpus);
  g_assert_cmpuint (cpus->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < cpus->len; i++)
    g_assert_cmpint (g_array_index (cpus, int, i), ==, expected[i]);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_null (qf_cpu_list_parse (bad[i], &error));
      g_assert_nonnull (error);
    }
}

/* The kernel check of a non-real-time PC names the way to a PREEMPT_RT kernel that its release
 * has: Debian's package, Ubuntu Pro or the low-latency kernel on 22.04 and 24.04, the archive's
 * linux-realtime on 26.04, no package on a release Qualify does not know. */
static void
test_kernel_advice_per_release (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (qf_test_releases); i++)
    {
      const QfTestRelease *release = &qf_test_releases[i];
      char *root = qf_test_release_root ("stock-desktop", release);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) checks = qf_audit_run (root, &error);
      QfAuditCheck *check;

      g_assert_no_error (error);
      check = qf_audit_find (checks, "kernel.preempt");
      g_assert_nonnull (check);
      g_test_message ("%s: %s", release->codename, check->advice);
      g_assert_cmpint (check->status, !=, QF_AUDIT_OK);
      g_assert_nonnull (strstr (check->advice, release->install));
      g_assert_null (strstr (check->advice, release->never));
      if (g_str_equal (release->codename, "jammy") || g_str_equal (release->codename, "noble"))
        {
          g_assert_nonnull (strstr (check->advice, "sudo pro attach"));
          g_assert_nonnull (strstr (check->advice, "sudo apt install linux-lowlatency"));
          g_assert_nonnull (strstr (check->advice, "not PREEMPT_RT"));
        }
      qf_test_release_root_free (root);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/audit/rt-pc", test_rt_pc);
  g_test_add_func ("/core/audit/stock-desktop", test_stock_desktop);
  g_test_add_func ("/core/audit/bare", test_bare);
  g_test_add_func ("/core/audit/dynamic-full", test_dynamic_full);
  g_test_add_func ("/core/audit/not-a-tree", test_not_a_tree);
  g_test_add_func ("/core/audit/json", test_json);
  g_test_add_func ("/core/audit/this-pc", test_this_pc);
  g_test_add_func ("/core/audit/vm-guest", test_vm_guest);
  g_test_add_func ("/core/audit/this-pc-vm", test_this_pc_vm);
  g_test_add_func ("/core/audit/cpu-list", test_cpu_list);
  g_test_add_func ("/core/audit/kernel-advice-per-release", test_kernel_advice_per_release);

  return g_test_run ();
}
