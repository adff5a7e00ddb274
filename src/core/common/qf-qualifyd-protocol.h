/* qf-qualifyd-protocol.h — the names of the qualifyd system service on the bus, shared by the
 * daemon (src/daemon) and its client (src/core/system/qf-qualifyd.c); docs/privileges.md.
 *
 * io.github.qualify.Qualifyd1 at /io/github/qualify/Qualifyd on the system bus:
 *
 *   MakeThreadRealtime (t tid, u priority)  thread `tid` of the caller's own process becomes
 *                                           SCHED_FIFO | SCHED_RESET_ON_FORK at `priority`
 *                                           (1 … MaxRealtimePriority); the caller's
 *                                           RLIMIT_RTTIME hard limit must be set, at most
 *                                           RTTimeUSecMax
 *   RaiseMemlockLimit () → (t bytes)        the caller's RLIMIT_MEMLOCK becomes `bytes` (soft and
 *                                           hard; half the PC's RAM), so that mlockall works
 *   OpenIcmpSocket (u ip_version) → (h fd)  a raw ICMP (4) or ICMPv6 (6) socket, for ping
 *   OpenTrace () → (a{sv} info, h marker, h header_page, a{sh} formats, ah cpus)
 *                                           a kernel-trace instance made for the caller
 *                                           (instances/qualify-<pid>-<n>, the fixed events of
 *                                           qf-tracefs, its bounded buffer) and the descriptors
 *                                           a reader needs: trace_marker (write only),
 *                                           events/header_page, each event's format by
 *                                           "system/name", each CPU's trace_pipe_raw (-1 for a
 *                                           CPU without one); info has the QF_QUALIFYD_TRACE_*
 *                                           keys below. One per caller; authorised by
 *                                           QF_QUALIFYD_ACTION_TRACE, not by _MEASURE
 *   CloseTrace ()                           removes it (close the descriptors first); leaving
 *                                           the bus removes it too
 *   GetAccess () → (s access)               what this caller would get for measuring, asking
 *                                           no one: one of the QF_QUALIFYD_WORD_* words below
 *   GetTraceAccess () → (s access)          the same for tracing
 *   properties MaxRealtimePriority (i), RTTimeUSecMax (x), MemlockBytes (t), Version (s)
 *
 * Who is served is decided for every call from the bus's credentials of the caller (never from
 * anything the caller says about itself): root; a member of the system group `qualify`; anyone
 * else whom polkit authorises for QF_QUALIFYD_ACTION_MEASURE, interactively when the call allows
 * it. Refusals are D-Bus errors with the names below, so the client can explain them in the
 * user's language. Kernel tracing (issue #34) is authorised by a second action,
 * io.github.qualify.trace: reading every process's scheduling and every interrupt of the PC is
 * more than measuring needs.
 */
#pragma once

#define QF_QUALIFYD_BUS_NAME   "io.github.qualify.Qualifyd"
#define QF_QUALIFYD_PATH       "/io/github/qualify/Qualifyd"
#define QF_QUALIFYD_INTERFACE  "io.github.qualify.Qualifyd1"

#define QF_QUALIFYD_ACTION_MEASURE "io.github.qualify.measure"
#define QF_QUALIFYD_ACTION_TRACE   "io.github.qualify.trace"
#define QF_QUALIFYD_GROUP          "qualify"

/* GetAccess () answers one of these words */
#define QF_QUALIFYD_WORD_ROOT        "root"         /* the caller is root */
#define QF_QUALIFYD_WORD_GROUP       "group"        /* a member of the group qualify */
#define QF_QUALIFYD_WORD_POLKIT      "polkit"       /* polkit authorises it without asking */
#define QF_QUALIFYD_WORD_POLKIT_AUTH "polkit-auth"  /* polkit would ask for a password */
#define QF_QUALIFYD_WORD_NONE        "none"         /* refused */

/* OpenTrace's info keys */
#define QF_QUALIFYD_TRACE_INSTANCE       "instance"        /* s: "qualify-1234-0" */
#define QF_QUALIFYD_TRACE_MOUNT          "mount"           /* s: where tracefs is mounted */
#define QF_QUALIFYD_TRACE_BUFFER_KB      "buffer-kb"       /* u: per CPU */
#define QF_QUALIFYD_TRACE_CLOCK          "clock"           /* s: "mono" */
#define QF_QUALIFYD_TRACE_EVENTS         "events"          /* as: enabled */
#define QF_QUALIFYD_TRACE_EVENTS_MISSING "events-missing"  /* as: this kernel lacks them */
#define QF_QUALIFYD_TRACE_TRACERS        "tracers"         /* as: available_tracers */

/* Errors */
#define QF_QUALIFYD_DBUS_ERROR_NOT_AUTHORIZED   QF_QUALIFYD_INTERFACE ".Error.NotAuthorized"
#define QF_QUALIFYD_DBUS_ERROR_NOT_YOUR_THREAD  QF_QUALIFYD_INTERFACE ".Error.NotYourThread"
#define QF_QUALIFYD_DBUS_ERROR_RTTIME_NOT_SET   QF_QUALIFYD_INTERFACE ".Error.RTTimeNotSet"
#define QF_QUALIFYD_DBUS_ERROR_INVALID_PRIORITY QF_QUALIFYD_INTERFACE ".Error.InvalidPriority"
#define QF_QUALIFYD_DBUS_ERROR_TOO_MANY_THREADS QF_QUALIFYD_INTERFACE ".Error.TooManyThreads"
#define QF_QUALIFYD_DBUS_ERROR_UNSUPPORTED      QF_QUALIFYD_INTERFACE ".Error.Unsupported"
#define QF_QUALIFYD_DBUS_ERROR_TOO_MANY_TRACES  QF_QUALIFYD_INTERFACE ".Error.TooManyTraces"
#define QF_QUALIFYD_DBUS_ERROR_FAILED           QF_QUALIFYD_INTERFACE ".Error.Failed"
