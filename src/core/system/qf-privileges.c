/* qf-privileges.c — which way this process gets real-time priority, locked memory and ICMP
 * sockets (src/core); see qf-privileges.h for the API and docs/privileges.md for the choices.
 *
 * Capabilities come from the calling thread's CapEff in /proc, limits from getrlimit(), qualifyd
 * from its GetAccess (which asks nobody), rtkit from its MaxRealtimePriority property on the
 * system bus, and ICMP by opening (and closing) the sockets the ping engine would use: the only
 * answer that is never wrong about the last one. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-privileges.h"
#include "qf-qualifyd.h"
#include "qf-text.h"

/* Bits of the kernel's capability sets (linux/capability.h). */
#define CAP_BIT_IPC_LOCK 14
#define CAP_BIT_NET_RAW  13
#define CAP_BIT_SYS_NICE 23

/* The priority the procedure asks for (cyclictest -p 99). */
#define WANTED_PRIORITY 99

#define RTKIT_TIMEOUT_MS 1000

/* What was learnt once for all three checks. */
typedef struct
{
  guint64          caps;
  gboolean         qualifyd_known;     /* qualifyd answered */
  QfQualifydAccess qualifyd;
  char            *user;
} Facts;

static QfAuditCheck *
check_new (const char    *id,
           const char    *title,
           QfAuditStatus  status,
           char          *value,
           char          *advice)
{
  QfAuditCheck *check = g_new0 (QfAuditCheck, 1);

  check->id = g_strdup (id);
  check->title = g_strdup (title);
  check->status = status;
  check->value = value;
  check->advice = advice;
  return check;
}

/* The calling thread's effective capability set, 0 when it cannot be read. */
static guint64
effective_capabilities (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/thread-self/status", &status, NULL, NULL) &&
      !g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "\nCapEff:");
  if (line == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen ("\nCapEff:"), NULL, 16);
}

static gboolean
has_capability (guint64 caps,
                int     bit)
{
  return (caps >> bit) & 1;
}

static int
rlimit_rtprio (void)
{
  struct rlimit rl = { 0, 0 };

  if (getrlimit (RLIMIT_RTPRIO, &rl) != 0)
    return 0;
  return rl.rlim_cur == RLIM_INFINITY ? WANTED_PRIORITY : (int) MIN (rl.rlim_cur, 99);
}

gboolean
qf_privileges_can_set_rt (int priority)
{
  return has_capability (effective_capabilities (), CAP_BIT_SYS_NICE) ||
         rlimit_rtprio () >= priority;
}

gboolean
qf_privileges_can_lock_memory (void)
{
  struct rlimit rl = { 0, 0 };

  return has_capability (effective_capabilities (), CAP_BIT_IPC_LOCK) ||
         (getrlimit (RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY);
}

gboolean
qf_privileges_has_net_raw (void)
{
  return has_capability (effective_capabilities (), CAP_BIT_NET_RAW);
}

/* rtkit's MaxRealtimePriority, or 0 when rtkit does not answer (no system bus, not installed). */
static int
rtkit_max_priority (void)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;

  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, NULL);
  if (bus == NULL)
    return 0;
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.RealtimeKit1",
                                       "/org/freedesktop/RealtimeKit1",
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "org.freedesktop.RealtimeKit1",
                                                      "MaxRealtimePriority"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                                       RTKIT_TIMEOUT_MS, NULL, NULL);
  if (reply == NULL)
    return 0;
  g_variant_get (reply, "(v)", &value);
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    return 0;
  return MAX (g_variant_get_int32 (value), 0);
}

/* qualifyd grants this user (without asking, or after an administrator's password). */
static gboolean
qualifyd_grants (const Facts *facts)
{
  return facts->qualifyd_known && facts->qualifyd >= QF_QUALIFYD_ACCESS_POLKIT_AUTH;
}

/* The row's value and advice when qualifyd grants; status WARN when a password will be asked. */
static QfAuditCheck *
check_by_qualifyd (const char  *id,
                   const char  *title,
                   const Facts *facts,
                   const char  *what)
{
  switch (facts->qualifyd)
    {
    case QF_QUALIFYD_ACCESS_GROUP:
    case QF_QUALIFYD_ACCESS_ROOT:
      return check_new (id, title, QF_AUDIT_OK,
                        g_strdup (_("qualifyd (member of the group qualify)")),
                        /* TRANSLATORS: %s says what is granted, e.g. "priority 99" */
                        g_strdup_printf (_("Qualify’s system service qualifyd grants %s: you are "
                                           "a member of the group qualify."), what));
    case QF_QUALIFYD_ACCESS_POLKIT:
      return check_new (id, title, QF_AUDIT_OK, g_strdup (_("qualifyd (polkit)")),
                        g_strdup_printf (_("Qualify’s system service qualifyd grants %s: polkit "
                                           "allows it for you."), what));
    case QF_QUALIFYD_ACCESS_POLKIT_AUTH:
    case QF_QUALIFYD_ACCESS_NONE:
    default:
      return check_new (id, title, QF_AUDIT_WARN,
                        g_strdup (_("qualifyd, after an administrator’s password")),
                        g_strdup_printf (_("Qualify’s system service qualifyd grants %s once an "
                                           "administrator types the password in this desktop’s "
                                           "own dialog when the test starts. To be asked "
                                           "nothing: sudo adduser %s qualify."),
                                         what, facts->user));
    }
}

/* Every way but root, capabilities and limits failed: rtkit's partial grant, or nothing. */
static QfAuditCheck *
check_rt_fallback (const Facts *facts,
                   const char  *title,
                   int          rlimit_prio)
{
  int rtkit_prio = rtkit_max_priority ();
  g_autofree char *fix = NULL;

  if (facts->qualifyd_known)
    /* TRANSLATORS: the fix for real-time priority 99; %s is the user's login name */
    fix = g_strdup_printf (_("sudo adduser %s qualify (Qualify’s system service qualifyd then "
                             "grants it), or run qualify-cli as root"), facts->user);
  else
    fix = g_strdup (_("install Qualify’s packages (they bring its system service qualifyd) and "
                      "join the group qualify, or run qualify-cli as root"));

  if (rlimit_prio > 0 && rlimit_prio >= rtkit_prio)
    return check_new ("privilege.rt", title, QF_AUDIT_WARN,
                      g_strdup_printf (_("RLIMIT_RTPRIO %d (limits.d)"), rlimit_prio),
                      g_strdup_printf (_("The real-time test runs at priority %d instead of 99; "
                                         "the result is valid. For 99: %s."), rlimit_prio, fix));
  if (rtkit_prio > 0)
    return check_new ("privilege.rt", title, QF_AUDIT_WARN,
                      g_strdup_printf (_("rtkit, priority up to %d"), rtkit_prio),
                      g_strdup_printf (_("RealtimeKit grants priority %d at most (the procedure "
                                         "uses 99); the result is valid. It refuses SSH "
                                         "sessions. For 99: %s."), rtkit_prio, fix));
  return check_new ("privilege.rt", title, QF_AUDIT_FAIL, g_strdup (_("none")),
                    g_strdup_printf (_("The real-time test would run without real-time priority "
                                       "and its result would be invalid. Fix: %s."), fix));
}

static QfAuditCheck *
check_rt (const Facts *facts)
{
  const char *title = _("Real-time priority");
  int rlimit_prio = rlimit_rtprio ();

  if (geteuid () == 0)
    return check_new ("privilege.rt", title, QF_AUDIT_OK, g_strdup (_("root")),
                      g_strdup (_("Running as root: the real-time test gets priority 99. Run only "
                                  "qualify-cli as root, never the graphical application.")));
  if (has_capability (facts->caps, CAP_BIT_SYS_NICE))
    return check_new ("privilege.rt", title, QF_AUDIT_OK,
                      g_strdup (_("CAP_SYS_NICE (file capabilities)")),
                      g_strdup (_("This program may use real-time priority 99 through its file "
                                  "capabilities (installed with -Dcapabilities=true).")));
  if (rlimit_prio >= WANTED_PRIORITY)
    return check_new ("privilege.rt", title, QF_AUDIT_OK,
                      g_strdup_printf (_("RLIMIT_RTPRIO %d (limits.d)"), rlimit_prio),
                      g_strdup (_("Your login allows real-time priority 99 (a limits.d rule, for "
                                  "example for the qualify group).")));
  if (qualifyd_grants (facts))
    return check_by_qualifyd ("privilege.rt", title, facts, _("real-time priority 99"));
  return check_rt_fallback (facts, title, rlimit_prio);
}

static QfAuditCheck *
check_memlock (const Facts *facts)
{
  const char *title = _("Memory locking");
  struct rlimit rl = { 0, 0 };

  if (geteuid () == 0)
    return check_new ("privilege.memlock", title, QF_AUDIT_OK, g_strdup (_("root")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  if (has_capability (facts->caps, CAP_BIT_IPC_LOCK))
    return check_new ("privilege.memlock", title, QF_AUDIT_OK,
                      g_strdup (_("CAP_IPC_LOCK (file capabilities)")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  if (getrlimit (RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
    return check_new ("privilege.memlock", title, QF_AUDIT_OK,
                      g_strdup (_("RLIMIT_MEMLOCK unlimited (limits.d)")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  if (qualifyd_grants (facts))
    return check_by_qualifyd ("privilege.memlock", title, facts,
                              _("the memory locking limit (half the RAM)"));
  return check_new ("privilege.memlock", title, QF_AUDIT_WARN,
                    g_strdup_printf (_("RLIMIT_MEMLOCK %llu KiB"),
                                     (unsigned long long) (rl.rlim_cur / 1024)),
                    g_strdup_printf (_("The real-time test cannot lock all its memory, so a page "
                                       "fault can add latency. Fix: sudo adduser %s qualify "
                                       "(Qualify’s system service qualifyd then raises the "
                                       "limit), or run qualify-cli as root."),
                                     facts->user));
}

static gboolean
can_open (int type)
{
  int fd = socket (AF_INET, type | SOCK_CLOEXEC, IPPROTO_ICMP);

  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

static char *
ping_group_range (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/sys/net/ipv4/ping_group_range", &text, NULL, NULL))
    return g_strdup ("?");
  g_strdelimit (g_strstrip (text), "\t", ' ');
  return g_steal_pointer (&text);
}

static QfAuditCheck *
check_icmp (const Facts *facts)
{
  const char *title = _("ICMP sockets");
  g_autofree char *range = ping_group_range ();

  if (geteuid () == 0 || (has_capability (facts->caps, CAP_BIT_NET_RAW) && can_open (SOCK_RAW)))
    return check_new ("privilege.icmp", title, QF_AUDIT_OK,
                      g_strdup (geteuid () != 0 ? _("raw sockets (CAP_NET_RAW)")
                                                : _("raw sockets (root)")),
                      g_strdup (_("The ping test uses raw ICMP sockets and may send every "
                                  "millisecond, as the procedure’s ping -i 0.001 does.")));
  if (qualifyd_grants (facts))
    return check_by_qualifyd ("privilege.icmp", title, facts,
                              _("raw ICMP sockets, so the ping test may send every millisecond"));
  if (can_open (SOCK_DGRAM))
    return check_new ("privilege.icmp", title, QF_AUDIT_WARN,
                      g_strdup_printf (_("datagram sockets (net.ipv4.ping_group_range %s)"),
                                       range),
                      g_strdup_printf (_("The ping test runs without privilege, but like iputils "
                                         "ping for a user it sends every 2 ms at most, not every "
                                         "millisecond as the procedure does. Fix: sudo adduser "
                                         "%s qualify, or run qualify-cli as root."),
                                       facts->user));
  return check_new ("privilege.icmp", title, QF_AUDIT_FAIL, g_strdup (_("none")),
                    g_strdup_printf (_("The ping test cannot send ICMP echo requests: "
                                       "net.ipv4.ping_group_range is “%s” and this program "
                                       "has no CAP_NET_RAW. Fix: sudo adduser %s qualify "
                                       "(Qualify’s system service qualifyd then hands it a "
                                       "socket), or run qualify-cli as root; for pings every "
                                       "2 ms or slower, sudo sysctl -w "
                                       "net.ipv4.ping_group_range=\"0 2147483647\" is enough "
                                       "(keep it in /etc/sysctl.d/)."),
                                     range, facts->user));
}

GPtrArray *
qf_privileges_check (void)
{
  GPtrArray *checks = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_audit_check_free);
  Facts facts = { 0 };

  facts.caps = effective_capabilities ();
  /* a word of the adduser command in the advice: quoted when it needs to be, as it pastes */
  facts.user = qf_text_shell_word (g_get_user_name ());
  if (geteuid () != 0)
    facts.qualifyd_known = qf_qualifyd_get_access (&facts.qualifyd, NULL);

  g_ptr_array_add (checks, check_rt (&facts));
  g_ptr_array_add (checks, check_memlock (&facts));
  g_ptr_array_add (checks, check_icmp (&facts));
  g_free (facts.user);
  return checks;
}
