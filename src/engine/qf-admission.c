/* qf-admission.c — the pool of unproven connections and the log limit shared by the two
 * responders (src/engine). See qf-admission.h. */
#include "config.h"

#include <netinet/in.h>
#include <string.h>

#include "qf-admission.h"
#include "qf-i18n.h"

/* The bytes that name a source: 4 for IPv4 (v4-mapped too), the first 8 (the /64) for IPv6. */
static gsize
source_bytes (const struct sockaddr  *addr,
              const guint8          **bytes)
{
  if (addr->sa_family == AF_INET)
    {
      *bytes = (const guint8 *) &((const struct sockaddr_in *) addr)->sin_addr;
      return 4;
    }
  if (addr->sa_family == AF_INET6)
    {
      const struct in6_addr *a = &((const struct sockaddr_in6 *) addr)->sin6_addr;
      if (IN6_IS_ADDR_V4MAPPED (a))
        {
          *bytes = &a->s6_addr[12];
          return 4;
        }
      *bytes = a->s6_addr;
      return 8;
    }
  *bytes = NULL;
  return 0;
}

gboolean
qf_admission_same_source (const struct sockaddr *a,
                          const struct sockaddr *b)
{
  const guint8 *x, *y;
  gsize nx = source_bytes (a, &x), ny = source_bytes (b, &y);

  return nx == ny && nx > 0 && memcmp (x, y, nx) == 0;
}

gint
qf_admission_victim (const QfAdmission     *self,
                     const struct sockaddr *addr)
{
  gint oldest_same = -1;
  guint same = 0;

  for (guint i = 0; i < self->n; i++)
    if (qf_admission_same_source ((const struct sockaddr *) &self->entries[i].addr, addr))
      {
        if (same++ == 0)
          oldest_same = (gint) self->entries[i].id;
      }
  if (same >= QF_ADMISSION_PER_SOURCE)
    return oldest_same;
  if (self->n >= QF_ADMISSION_TOTAL)
    return (gint) self->entries[0].id;
  return -1;
}

void
qf_admission_add (QfAdmission           *self,
                  guint                  id,
                  const struct sockaddr *addr,
                  gint64                 now_ns)
{
  QfAdmissionEntry *e;

  g_return_if_fail (self->n < QF_ADMISSION_TOTAL);

  e = &self->entries[self->n++];
  memset (e, 0, sizeof *e);
  e->id = id;
  memcpy (&e->addr, addr, addr->sa_family == AF_INET6 ? sizeof (struct sockaddr_in6)
                                                       : sizeof (struct sockaddr_in));
  e->since_ns = now_ns;
}

gboolean
qf_admission_remove (QfAdmission *self,
                     guint        id)
{
  for (guint i = 0; i < self->n; i++)
    if (self->entries[i].id == id)
      {
        memmove (&self->entries[i], &self->entries[i + 1],
                 (self->n - i - 1) * sizeof self->entries[0]);
        self->n--;
        return TRUE;
      }
  return FALSE;
}

gint
qf_admission_expired (const QfAdmission *self,
                      gint64             now_ns)
{
  /* Oldest first: only the first can be the earliest past its deadline. */
  if (self->n > 0 && now_ns - self->entries[0].since_ns >= QF_ADMISSION_DEADLINE_NS)
    return (gint) self->entries[0].id;
  return -1;
}

gint64
qf_admission_next_ns (const QfAdmission *self,
                      gint64             now_ns)
{
  if (self->n == 0)
    return G_MAXINT64;
  return MAX (self->entries[0].since_ns + QF_ADMISSION_DEADLINE_NS - now_ns, 0);
}

gboolean
qf_log_limit_take (QfLogLimit *self,
                   gint64      now_ns)
{
  if (self->refilled_ns == 0)
    {
      self->refilled_ns = now_ns;
      self->tokens = QF_LOG_LIMIT_BURST;
    }
  if (now_ns - self->refilled_ns >= QF_LOG_LIMIT_EVERY_NS)
    {
      gint64 earned = (now_ns - self->refilled_ns) / QF_LOG_LIMIT_EVERY_NS;
      self->tokens = (guint) MIN ((gint64) self->tokens + earned, QF_LOG_LIMIT_BURST);
      self->refilled_ns += earned * QF_LOG_LIMIT_EVERY_NS;
    }
  if (self->tokens > 0)
    {
      self->tokens--;
      return TRUE;
    }
  if (self->held_back++ == 0)
    self->held_since_ns = now_ns;
  return FALSE;
}

char *
qf_log_limit_summary (QfLogLimit *self,
                      gint64      now_ns,
                      gboolean    force)
{
  char *line;

  if (self->held_back == 0 || (!force && now_ns - self->held_since_ns < QF_LOG_LIMIT_SUMMARY_NS))
    return NULL;
  line = g_strdup_printf (qf_ngettext ("%u more line about connections left out of the log in "
                                       "the last %.0f s (a burst of %u, then one a second)",
                                       "%u more lines about connections left out of the log in "
                                       "the last %.0f s (a burst of %u, then one a second)",
                                       self->held_back),
                          self->held_back, MAX ((now_ns - self->held_since_ns) / 1e9, 1.0),
                          QF_LOG_LIMIT_BURST);
  self->held_back = 0;
  return line;
}

void
qf_log_limit_vprintf (QfLogLimit *self,
                      gboolean    limited,
                      QfLogSink   sink,
                      gpointer    data,
                      const char *format,
                      va_list     args)
{
  g_autofree char *line = NULL;

  if (sink == NULL || (limited && !qf_log_limit_take (self, qf_clock_now_ns ())))
    return;
  line = g_strdup_vprintf (format, args);
  sink (line, data);
}

void
qf_log_limit_flush (QfLogLimit *self,
                    gboolean    force,
                    QfLogSink   sink,
                    gpointer    data)
{
  g_autofree char *line = sink != NULL ? qf_log_limit_summary (self, qf_clock_now_ns (), force) : NULL;

  if (line != NULL)
    sink (line, data);
}
