/* qf-admission.h — what the two responders (qf-responder.c, qf-iperf3.c) do with connections
 * that have not proven themselves yet, and with the log lines strangers can cause (src/engine).
 *
 * A TCP connection is unproven from accept() until it proves the access token (with
 * `serve --token-file`) or, without a token, until it sends its first request (a sockperf
 * message, an iperf3 cookie): only then does it count against --max-clients. Unproven
 * connections live in a pool of their own, bounded per source and in total; one that does not
 * prove itself within QF_ADMISSION_DEADLINE_NS is dropped, and when the pool is full the oldest
 * unproven connection from the same source (or, past the total, the oldest of all) makes room
 * for the new one. So no number of idle connections keeps a client that proves itself out while
 * a slot is free (docs/security.md, "Connections that have not proven themselves").
 *
 * The log limit: every line about a connection goes through a token bucket (a burst of
 * QF_LOG_LIMIT_BURST, then one a second); what it holds back is counted and summed up in one
 * line at most every QF_LOG_LIMIT_SUMMARY_NS, and once more when the service stops.
 *
 * Plain data, no locking: each is used by one service loop on one thread.
 */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <sys/socket.h>

#include "qf-clock.h"

G_BEGIN_DECLS

#define QF_ADMISSION_PER_SOURCE   16     /* unproven connections from one address (IPv6: /64) */
#define QF_ADMISSION_TOTAL        64     /* unproven connections in all */
#define QF_ADMISSION_DEADLINE_NS  (2 * QF_NSEC_PER_SEC)
#define QF_ADMISSION_DEADLINE_S   2      /* the same, for messages */

typedef struct
{
  guint                   id;        /* the owner's slot */
  struct sockaddr_storage addr;
  gint64                  since_ns;
} QfAdmissionEntry;

typedef struct
{
  QfAdmissionEntry entries[QF_ADMISSION_TOTAL];   /* oldest first */
  guint            n;
} QfAdmission;

/* Whether a and b come from the same source: the same IPv4 address (also when one is
 * v4-mapped), or the same IPv6 /64 (one subscriber's prefix). */
gboolean qf_admission_same_source (const struct sockaddr *a,
                                   const struct sockaddr *b);
/* The id of the unproven connection to drop before one more from addr is added, or -1 when
 * there is room: the oldest from the same source when it has QF_ADMISSION_PER_SOURCE, else the
 * oldest of all when the pool is full. */
gint     qf_admission_victim      (const QfAdmission     *self,
                                   const struct sockaddr *addr);
/* Adds a connection (the pool must have room: drop the victim first). */
void     qf_admission_add         (QfAdmission           *self,
                                   guint                  id,
                                   const struct sockaddr *addr,
                                   gint64                 now_ns);
/* Takes a connection out (proved itself, or closed); FALSE when it was not in the pool. */
gboolean qf_admission_remove      (QfAdmission           *self,
                                   guint                  id);
/* The id of a connection past its deadline, or -1. */
gint     qf_admission_expired     (const QfAdmission     *self,
                                   gint64                 now_ns);
/* Nanoseconds until the next deadline (G_MAXINT64 when the pool is empty, 0 when past). */
gint64   qf_admission_next_ns     (const QfAdmission     *self,
                                   gint64                 now_ns);

#define QF_LOG_LIMIT_BURST        20
#define QF_LOG_LIMIT_EVERY_NS     QF_NSEC_PER_SEC
#define QF_LOG_LIMIT_SUMMARY_NS   (10 * QF_NSEC_PER_SEC)

typedef struct
{
  gint64 refilled_ns;    /* 0 = not used yet (a full bucket) */
  guint  tokens;
  guint  held_back;
  gint64 held_since_ns;
} QfLogLimit;

/* Whether a line may be written now; counts it as held back when not. */
gboolean qf_log_limit_take        (QfLogLimit            *self,
                                   gint64                 now_ns);
/* The line that sums up what was held back, when one is due (force: now, at a stop), else
 * NULL. */
char    *qf_log_limit_summary     (QfLogLimit            *self,
                                   gint64                 now_ns,
                                   gboolean               force);

/* Where a limited log writes: one line, on the caller's thread (the signature of
 * QfResponderLogFunc and QfIperf3LogFunc). */
typedef void (*QfLogSink) (const char *line,
                           gpointer    data);
/* Formats a line and hands it to sink, through the limit when limited (a line about a stranger)
 * or always; nothing when sink is NULL or the limit holds it back. */
void     qf_log_limit_vprintf     (QfLogLimit            *self,
                                   gboolean               limited,
                                   QfLogSink              sink,
                                   gpointer               data,
                                   const char            *format,
                                   va_list                args) G_GNUC_PRINTF (5, 0);
/* Hands the summary line to sink when one is due (force: now, at a stop). */
void     qf_log_limit_flush       (QfLogLimit            *self,
                                   gboolean               force,
                                   QfLogSink              sink,
                                   gpointer               data);

G_END_DECLS
