/* test-privileges.c — qf_privileges_check() names the way that really works (tests/core).
 *
 * Each case forks a child that sets up one situation as an installer's PC would have it — an
 * unprivileged user with nothing, a limits.d rule, file capabilities (kept across setuid), ping
 * sockets on or off in a network namespace of its own — drops to the user nobody, runs the
 * checks and reports them to the parent. rtkit is kept out of the way (no system bus), so the
 * answers do not depend on the machine. Needs root; skips otherwise. */
#include "config.h"

#include <glib.h>
#include <grp.h>
#include <glib/gstdio.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qf-privileges.h"

#define NOBODY 65534

typedef struct
{
  rlim_t      rtprio;
  rlim_t      memlock;
  guint32     keep_caps;    /* capability bits kept effective after dropping to nobody */
  const char *ping_range;   /* set in a new network namespace, or NULL to leave it alone */
} Situation;

static gboolean
need_root (void)
{
  if (geteuid () == 0)
    return TRUE;
  g_test_skip ("needs root to set up the situations (setuid, rlimits, network namespace)");
  return FALSE;
}

static void
drop_to_nobody (guint32 keep_caps)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];

  if (keep_caps != 0 && prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
    _exit (90);
  if (setgroups (0, NULL) != 0 || setresgid (NOBODY, NOBODY, NOBODY) != 0 ||
      setresuid (NOBODY, NOBODY, NOBODY) != 0)
    _exit (91);
  memset (data, 0, sizeof data);
  data[0].effective = keep_caps;
  data[0].permitted = keep_caps;
  if (syscall (SYS_capset, &header, data) != 0)
    _exit (92);
}

/* Runs the checks in a child set up as `situation`; returns "id status value | advice" lines,
 * or NULL (test skipped) when this machine cannot set the situation up. */
static char *
run_in (const Situation *situation)
{
  int fds[2];
  pid_t pid;
  int status = 0;
  GString *out = g_string_new (NULL);
  char buf[4096];
  ssize_t n;

  g_assert_no_errno (pipe (fds));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct rlimit rt = { situation->rtprio, situation->rtprio };
      struct rlimit ml = { situation->memlock, situation->memlock };
      g_autoptr(GPtrArray) checks = NULL;
      g_autoptr(GString) text = g_string_new (NULL);

      close (fds[0]);
      g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/qf-test-no-bus", TRUE);
      if (setrlimit (RLIMIT_RTPRIO, &rt) != 0 || setrlimit (RLIMIT_MEMLOCK, &ml) != 0)
        _exit (93);
      if (situation->ping_range != NULL)
        {
          FILE *sysctl;

          /* Not g_file_set_contents: it writes a temporary file and renames it over /proc. */
          if (unshare (CLONE_NEWNET) != 0 ||
              (sysctl = fopen ("/proc/sys/net/ipv4/ping_group_range", "w")) == NULL)
            _exit (94);
          if (fputs (situation->ping_range, sysctl) < 0 || fclose (sysctl) != 0)
            _exit (94);
        }
      drop_to_nobody (situation->keep_caps);
      checks = qf_privileges_check ();
      for (guint i = 0; i < checks->len; i++)
        {
          QfAuditCheck *c = g_ptr_array_index (checks, i);
          g_string_append_printf (text, "%s %s %s | %s\n", c->id,
                                  qf_audit_status_to_string (c->status), c->value, c->advice);
        }
      if (write (fds[1], text->str, text->len) != (ssize_t) text->len)
        _exit (95);
      _exit (0);
    }
  close (fds[1]);
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) == 93)
    {
      /* Raising a hard limit needs CAP_SYS_RESOURCE, which some containers withhold. */
      g_test_skip ("cannot raise RLIMIT_RTPRIO/RLIMIT_MEMLOCK here (no CAP_SYS_RESOURCE)");
      g_string_free (out, TRUE);
      return NULL;
    }
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  return g_string_free (out, FALSE);
}

/* The line of check `id`, e.g. "privilege.rt fail none | …". */
static char *
line_of (const char *report,
         const char *id)
{
  g_auto(GStrv) lines = g_strsplit (report, "\n", -1);
  g_autofree char *prefix = g_strconcat (id, " ", NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i]);
  g_assert_not_reached ();
  return NULL;
}

static void
assert_check (const char *report,
              const char *id,
              const char *status,
              const char *value_part)
{
  g_autofree char *line = line_of (report, id);
  g_autofree char *want = g_strdup_printf ("%s %s ", id, status);

  if (!g_str_has_prefix (line, want) || strstr (line, value_part) == NULL)
    g_error ("expected “%s” with “%s”, got “%s”", want, value_part, line);
}

static void
test_shape (void)
{
  g_autoptr(GPtrArray) checks = qf_privileges_check ();
  const char *ids[] = { "privilege.rt", "privilege.memlock", "privilege.icmp" };

  g_assert_cmpuint (checks->len, ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < checks->len; i++)
    {
      QfAuditCheck *c = g_ptr_array_index (checks, i);

      g_assert_cmpstr (c->id, ==, ids[i]);
      g_assert_true (c->title != NULL && *c->title != '\0');
      g_assert_true (c->value != NULL && *c->value != '\0');
      g_assert_true (c->advice != NULL && *c->advice != '\0');
      g_assert_true (c->status != QF_AUDIT_UNKNOWN);
    }
  if (geteuid () == 0)
    g_assert_cmpint (((QfAuditCheck *) g_ptr_array_index (checks, 0))->status, ==, QF_AUDIT_OK);
}

static void
test_nothing (void)
{
  Situation s = { 0, 64 * 1024, 0, "1 0" };
  g_autofree char *report = NULL;

  if (!need_root ())
    return;
  if ((report = run_in (&s)) == NULL)
    return;
  assert_check (report, "privilege.rt", "fail", "none");
  assert_check (report, "privilege.rt", "fail", "run qualify-cli as root");
  assert_check (report, "privilege.memlock", "warn", "64 KiB");
  assert_check (report, "privilege.icmp", "fail", "ping_group_range=\"0 2147483647\"");
}

static void
test_limits_rule (void)
{
  Situation s = { 99, RLIM_INFINITY, 0, NULL };
  Situation low = { 50, RLIM_INFINITY, 0, NULL };
  g_autofree char *report = NULL;
  g_autofree char *report_low = NULL;

  if (!need_root ())
    return;
  if ((report = run_in (&s)) == NULL)
    return;
  assert_check (report, "privilege.rt", "ok", "RLIMIT_RTPRIO 99");
  assert_check (report, "privilege.memlock", "ok", "unlimited");
  if ((report_low = run_in (&low)) == NULL)
    return;
  assert_check (report_low, "privilege.rt", "warn", "RLIMIT_RTPRIO 50");
  assert_check (report_low, "privilege.rt", "warn", "priority 50 instead of 99");
}

static void
test_capabilities (void)
{
  Situation s = { 0, 64 * 1024,
                  (1u << CAP_SYS_NICE) | (1u << CAP_IPC_LOCK) | (1u << CAP_NET_RAW), "1 0" };
  g_autofree char *report = NULL;

  if (!need_root ())
    return;
  if ((report = run_in (&s)) == NULL)
    return;
  assert_check (report, "privilege.rt", "ok", "CAP_SYS_NICE");
  assert_check (report, "privilege.memlock", "ok", "CAP_IPC_LOCK");
  assert_check (report, "privilege.icmp", "ok", "raw sockets (CAP_NET_RAW)");
}

static void
test_ping_sockets (void)
{
  Situation s = { 0, 64 * 1024, 0, "0 2147483647" };
  g_autofree char *report = NULL;

  if (!need_root ())
    return;
  if ((report = run_in (&s)) == NULL)
    return;
  /* Datagram sockets work, but a user pings every 2 ms at most: the procedure's 1 ms needs the
   * group qualify (qualifyd) or root. */
  assert_check (report, "privilege.icmp", "warn", "datagram sockets");
  assert_check (report, "privilege.icmp", "warn", "0 2147483647");
  assert_check (report, "privilege.icmp", "warn", "every 2 ms at most");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/privileges/shape", test_shape);
  g_test_add_func ("/core/privileges/nothing", test_nothing);
  g_test_add_func ("/core/privileges/limits-rule", test_limits_rule);
  g_test_add_func ("/core/privileges/capabilities", test_capabilities);
  g_test_add_func ("/core/privileges/ping-sockets", test_ping_sockets);
  return g_test_run ();
}
