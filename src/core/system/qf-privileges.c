/* qf-privileges.c — which way this process gets real-time priority, locked memory and ICMP
 * sockets (src/core); see qf-privileges.h for the API and docs/privileges.md for the choices.
 *
 * Capabilities come from the calling thread's CapEff in /proc, limits from getrlimit(), rtkit from
 * its MaxRealtimePriority property on the system bus, and ICMP by opening (and closing) the
 * sockets the ping engine would use: the only answer that is never wrong about the last one. */
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
#include "qf-text.h"

/* Bits of the kernel's capability sets (linux/capability.h). */
#define CAP_BIT_IPC_LOCK 14
#define CAP_BIT_NET_RAW  13
#define CAP_BIT_SYS_NICE 23

/* The priority the procedure asks for (cyclictest -p 99). */
#define WANTED_PRIORITY 99

#define RTKIT_TIMEOUT_MS 1000

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

/* This program's own file as a word of the setcap command in the advice: a path with spaces or
 * shell characters ("/opt/My Tools/qualify-cli") is quoted, so the command pastes as shown. */
static char *
own_binary (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  return qf_text_shell_word (exe != NULL ? exe : "/usr/bin/qualify-cli");
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

static QfAuditCheck *
check_rt (guint64 caps)
{
  const char *title = _("Real-time priority");
  g_autofree char *exe = own_binary ();
  struct rlimit rl = { 0, 0 };
  int rlimit_prio = 0;
  int rtkit_prio;

  if (geteuid () == 0)
    return check_new ("privilege.rt", title, QF_AUDIT_OK, g_strdup (_("root")),
                      g_strdup (_("Running as root: the real-time test gets priority 99. Run only "
                                  "qualify-cli as root, never the graphical application.")));
  if (has_capability (caps, CAP_BIT_SYS_NICE))
    return check_new ("privilege.rt", title, QF_AUDIT_OK,
                      g_strdup (_("CAP_SYS_NICE (file capabilities)")),
                      g_strdup (_("This program may use real-time priority 99 through its file "
                                  "capabilities (installed with -Dcapabilities=true).")));

  if (getrlimit (RLIMIT_RTPRIO, &rl) == 0)
    rlimit_prio = rl.rlim_cur == RLIM_INFINITY ? WANTED_PRIORITY : (int) MIN (rl.rlim_cur, 99);
  if (rlimit_prio >= WANTED_PRIORITY)
    return check_new ("privilege.rt", title, QF_AUDIT_OK,
                      g_strdup_printf (_("RLIMIT_RTPRIO %d (limits.d)"), rlimit_prio),
                      g_strdup (_("Your login allows real-time priority 99 (a limits.d rule, for "
                                  "example for the qualify group).")));

  rtkit_prio = rtkit_max_priority ();
  if (rlimit_prio > 0 && rlimit_prio >= rtkit_prio)
    return check_new ("privilege.rt", title, QF_AUDIT_WARN,
                      g_strdup_printf (_("RLIMIT_RTPRIO %d (limits.d)"), rlimit_prio),
                      g_strdup_printf (_("The real-time test runs at priority %d instead of 99; "
                                         "the result is valid. For 99, raise rtprio to 99 in "
                                         "/etc/security/limits.d/ or run sudo setcap "
                                         "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep %s."),
                                       rlimit_prio, exe));
  if (rtkit_prio > 0)
    return check_new ("privilege.rt", title, QF_AUDIT_WARN,
                      g_strdup_printf (_("rtkit, priority up to %d"), rtkit_prio),
                      g_strdup_printf (_("RealtimeKit grants priority %d at most (the procedure "
                                         "uses 99); the result is valid. It refuses SSH "
                                         "sessions. For 99: sudo setcap "
                                         "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep %s, or join "
                                         "the qualify group (Qualify installed with "
                                         "-Drtprio_limits=true)."),
                                       rtkit_prio, exe));
  return check_new ("privilege.rt", title, QF_AUDIT_FAIL, g_strdup (_("none")),
                    g_strdup_printf (_("The real-time test would run without real-time priority "
                                       "and its result would be invalid. Fix: run qualify-cli "
                                       "as root, or sudo setcap "
                                       "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep %s, or a "
                                       "limits.d rule (rtprio 99) for your group, or start "
                                       "rtkit (systemctl start rtkit-daemon)."),
                                     exe));
}

static QfAuditCheck *
check_memlock (guint64 caps)
{
  const char *title = _("Memory locking");
  g_autofree char *exe = own_binary ();
  struct rlimit rl = { 0, 0 };

  if (geteuid () == 0)
    return check_new ("privilege.memlock", title, QF_AUDIT_OK, g_strdup (_("root")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  if (has_capability (caps, CAP_BIT_IPC_LOCK))
    return check_new ("privilege.memlock", title, QF_AUDIT_OK,
                      g_strdup (_("CAP_IPC_LOCK (file capabilities)")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  if (getrlimit (RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
    return check_new ("privilege.memlock", title, QF_AUDIT_OK,
                      g_strdup (_("RLIMIT_MEMLOCK unlimited (limits.d)")),
                      g_strdup (_("The real-time test locks its memory, so page faults cannot "
                                  "delay it.")));
  return check_new ("privilege.memlock", title, QF_AUDIT_WARN,
                    g_strdup_printf (_("RLIMIT_MEMLOCK %llu KiB"),
                                     (unsigned long long) (rl.rlim_cur / 1024)),
                    g_strdup_printf (_("The real-time test cannot lock all its memory, so a page "
                                       "fault can add latency. Fix: sudo setcap "
                                       "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep %s, or a "
                                       "limits.d rule (memlock unlimited) for your group, or "
                                       "run qualify-cli as root."),
                                     exe));
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
check_icmp (guint64 caps)
{
  const char *title = _("ICMP sockets");
  g_autofree char *range = ping_group_range ();
  g_autofree char *exe = own_binary ();

  if (can_open (SOCK_DGRAM))
    return check_new ("privilege.icmp", title, QF_AUDIT_OK,
                      g_strdup_printf (_("datagram sockets (net.ipv4.ping_group_range %s)"),
                                       range),
                      g_strdup (_("The ping test can run without any privilege.")));
  if (can_open (SOCK_RAW))
    return check_new ("privilege.icmp", title, QF_AUDIT_OK,
                      g_strdup (has_capability (caps, CAP_BIT_NET_RAW) && geteuid () != 0
                                ? _("raw sockets (CAP_NET_RAW)") : _("raw sockets (root)")),
                      g_strdup (_("The ping test uses raw ICMP sockets.")));
  return check_new ("privilege.icmp", title, QF_AUDIT_FAIL, g_strdup (_("none")),
                    g_strdup_printf (_("The ping test cannot send ICMP echo requests: "
                                       "net.ipv4.ping_group_range is “%s” and this program "
                                       "has no CAP_NET_RAW. Fix: sudo sysctl -w "
                                       "net.ipv4.ping_group_range=\"0 2147483647\" (keep it in "
                                       "/etc/sysctl.d/), or sudo setcap "
                                       "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep %s."),
                                     range, exe));
}

GPtrArray *
qf_privileges_check (void)
{
  GPtrArray *checks = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_audit_check_free);
  guint64 caps = effective_capabilities ();

  g_ptr_array_add (checks, check_rt (caps));
  g_ptr_array_add (checks, check_memlock (caps));
  g_ptr_array_add (checks, check_icmp (caps));
  return checks;
}
