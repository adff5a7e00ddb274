/* qf-qualifyd.h — the client of qualifyd, Qualify's system service (src/core;
 * docs/privileges.md, qf-qualifyd-protocol.h).
 *
 * qualifyd grants an authorised user (root, a member of the group qualify, or whom polkit
 * authorises at the PC's own desktop) what the measurements need and an ordinary process lacks:
 * SCHED_FIFO for its own measuring threads, a higher RLIMIT_MEMLOCK, a raw ICMP socket, and a
 * kernel-trace instance of its own (polkit action io.github.qualify.trace, apart from measuring).
 * These calls may let polkit ask for an administrator's password in the desktop's own dialog,
 * so they can take as long as a person typing: call them from a worker thread, never from the
 * main loop. qf_qualifyd_get_access() never asks anyone. The process keeps its system bus
 * connection from the first call on: qualifyd gives a real-time thread back to SCHED_OTHER when
 * the connection that asked for it closes.
 *
 * Every error is QF_QUALIFYD_ERROR with a message in the user's language that says what
 * happened and how to allow it (join the group, or run as root). */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

#define QF_QUALIFYD_ERROR (qf_qualifyd_error_quark ())
GQuark qf_qualifyd_error_quark (void);

typedef enum
{
  QF_QUALIFYD_ERROR_NOT_AVAILABLE,   /* no system bus, or qualifyd is not installed */
  QF_QUALIFYD_ERROR_NOT_AUTHORIZED,  /* neither root nor in the group qualify, polkit said no */
  QF_QUALIFYD_ERROR_REFUSED,         /* the request itself was refused (thread, limit, …) */
  QF_QUALIFYD_ERROR_FAILED,          /* qualifyd could not do it */
} QfQualifydError;

typedef enum
{
  QF_QUALIFYD_ACCESS_NONE,           /* refused */
  QF_QUALIFYD_ACCESS_POLKIT_AUTH,    /* granted after an administrator's password at the desktop */
  QF_QUALIFYD_ACCESS_POLKIT,         /* polkit allows it without asking */
  QF_QUALIFYD_ACCESS_GROUP,          /* a member of the group qualify */
  QF_QUALIFYD_ACCESS_ROOT,
} QfQualifydAccess;

/* What qualifyd would grant this process, asking nobody; FALSE with NOT_AVAILABLE when there is
 * no qualifyd to ask. */
gboolean qf_qualifyd_get_access            (QfQualifydAccess *access,
                                            GError          **error);
/* Makes thread `tid` of this process SCHED_FIFO at `priority`, after lowering RLIMIT_RTTIME to
 * qualifyd's bound (*rttime_changed says whether it did). */
gboolean qf_qualifyd_make_thread_realtime  (pid_t             tid,
                                            int               priority,
                                            gboolean         *rttime_changed,
                                            GError          **error);
/* Raises this process's RLIMIT_MEMLOCK to qualifyd's bound; *bytes is the new limit. */
gboolean qf_qualifyd_raise_memlock         (guint64          *bytes,
                                            GError          **error);
/* A raw ICMP socket for `family` (AF_INET or AF_INET6), close-on-exec; -1 with error. */
int      qf_qualifyd_open_icmp_socket      (int               family,
                                            GError          **error);

/* A kernel-trace instance qualifyd made for this process: its facts and the descriptors a
 * reader needs (qf-trace.h's QfTraceFds in plain terms; this part of core knows no engine). The
 * descriptors are this process's, close-on-exec; -1 where there is none. */
typedef struct
{
  char   *instance;        /* "qualify-1234-0" */
  char   *mount;
  guint   buffer_kb;       /* per CPU */
  char   *clock;
  GStrv   events;          /* enabled, "sched/sched_switch", … */
  GStrv   events_missing;
  GStrv   tracers;
  int     marker_fd;       /* trace_marker, write only */
  int     header_page_fd;
  GStrv   format_events;   /* the events whose format descriptors follow, in this order */
  int    *format_fds;
  guint   n_cpus;
  int    *cpu_fds;         /* each CPU's trace_pipe_raw */
} QfQualifydTrace;

/* Asks qualifyd for a trace instance (polkit may ask for a password: a worker thread). */
gboolean qf_qualifyd_open_trace            (QfQualifydTrace  *trace,
                                            GError          **error);
/* Closes the descriptors still open (≥ 0) and frees the rest. */
void     qf_qualifyd_trace_clear           (QfQualifydTrace  *trace);
/* Asks qualifyd to remove the instance; close its descriptors first (the kernel keeps an
 * instance that is still open). */
gboolean qf_qualifyd_close_trace           (GError          **error);

G_END_DECLS
