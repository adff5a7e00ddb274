/* qf-iperf3-proto.c — the iperf3 3.12 control protocol, both ends of it (src/engine).
 * See qf-iperf3-proto-private.h and ../shared/docs/interop.md §1. Our client (qf-bandwidth.c) and
 * our responder (qf-iperf3.c) speak it through these helpers; the data streams they set up run
 * on the workers of qf-bw-streams.c. */
#include "config.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>


#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-iperf3-proto-private.h"
#include "qf-net.h"

/* ---------------------------------------------------------------- control I/O */

/* Words a failed control-connection transfer the way the bandwidth client and responder
 * report it: every failure but a stop is the peer being lost. */
static gboolean
control_io_failed (QfNetIoStatus status,
                   int           errsv,
                   gboolean      sending,
                   const char   *what,
                   GError      **error)
{
  switch (status)
    {
    case QF_NET_IO_CANCELLED:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
      break;
    case QF_NET_IO_TIMED_OUT:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("The peer did not send the %s in time."), what);
      break;
    case QF_NET_IO_CLOSED:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("The peer closed the connection while sending the %s."), what);
      break;
    case QF_NET_IO_FAILED:
    case QF_NET_IO_DONE:
    default:
      if (sending)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                     _("Sending the %s to the peer failed: %s."), what, g_strerror (errsv));
      else
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                     _("Reading the %s from the peer failed: %s."), what, g_strerror (errsv));
      break;
    }
  return FALSE;
}

gboolean
_qf_iperf3_read_exact (int          fd,
                       void        *buf,
                       gsize        n,
                       gint64       deadline_ns,
                       const gint  *cancel,
                       const char  *what,
                       GError     **error)
{
  int errsv = 0;
  QfNetIoStatus status = qf_net_read_exact (fd, buf, n, deadline_ns, cancel, &errsv);

  return status == QF_NET_IO_DONE || control_io_failed (status, errsv, FALSE, what, error);
}

gboolean
_qf_iperf3_write_exact (int          fd,
                        const void  *buf,
                        gsize        n,
                        gint64       deadline_ns,
                        const gint  *cancel,
                        const char  *what,
                        GError     **error)
{
  int errsv = 0;
  QfNetIoStatus status = qf_net_write_exact (fd, buf, n, deadline_ns, cancel, &errsv);

  return status == QF_NET_IO_DONE || control_io_failed (status, errsv, TRUE, what, error);
}

gboolean
_qf_iperf3_read_state (int          fd,
                       signed char *state,
                       gint64       deadline_ns,
                       const gint  *cancel,
                       GError     **error)
{
  return _qf_iperf3_read_exact (fd, state, 1, deadline_ns, cancel, _("test state"), error);
}

gboolean
_qf_iperf3_write_state (int          fd,
                        signed char  state,
                        GError     **error)
{
  return _qf_iperf3_write_exact (fd, &state, 1, qf_clock_now_ns () + 5 * QF_NSEC_PER_SEC, NULL,
                                 _("test state"), error);
}

QfMiniJson *
_qf_iperf3_read_json (int          fd,
                      gsize        max_len,
                      gint64       deadline_ns,
                      const gint  *cancel,
                      const char  *what,
                      GError     **error)
{
  guint32 be_len;
  gsize len;
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  QfMiniJson *doc;

  if (!_qf_iperf3_read_exact (fd, &be_len, 4, deadline_ns, cancel, what, error))
    return NULL;
  len = GUINT32_FROM_BE (be_len);
  if (len == 0 || len > max_len)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("The peer announced %llu bytes of %s; at most %llu are accepted."),
                   (unsigned long long) len, what, (unsigned long long) max_len);
      return NULL;
    }
  text = g_malloc (len);
  if (!_qf_iperf3_read_exact (fd, text, len, deadline_ns, cancel, what, error))
    return NULL;
  doc = qf_minijson_parse (text, len, &local);
  if (doc == NULL || qf_minijson_type (doc) != QF_MINIJSON_OBJECT)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL, _("The peer sent malformed %s: %s"),
                   what, local != NULL ? local->message : _("not a JSON object"));
      qf_minijson_free (doc);
      return NULL;
    }
  return doc;
}

gboolean
_qf_iperf3_write_json (int            fd,
                       const GString *json,
                       GError       **error)
{
  guint32 be_len = GUINT32_TO_BE ((guint32) json->len);
  gint64 deadline = qf_clock_now_ns () + 10 * QF_NSEC_PER_SEC;

  return _qf_iperf3_write_exact (fd, &be_len, 4, deadline, NULL, _("JSON block"), error)
         && _qf_iperf3_write_exact (fd, json->str, json->len, deadline, NULL, _("JSON block"),
                                    error);
}

void
_qf_iperf3_make_cookie (char cookie[QF_IPERF3_COOKIE_SIZE])
{
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  g_autoptr(GRand) rand = g_rand_new ();

  for (int i = 0; i < QF_IPERF3_COOKIE_SIZE - 1; i++)
    cookie[i] = alphabet[g_rand_int_range (rand, 0, 32)];
  cookie[QF_IPERF3_COOKIE_SIZE - 1] = '\0';
}

void
_qf_iperf3_cpu_mark (QfCpuMark *mark)
{
  mark->t_ns = qf_clock_now_ns ();
  getrusage (RUSAGE_SELF, &mark->usage);
}

static gdouble
tv_s (const struct timeval *tv)
{
  return tv->tv_sec + tv->tv_usec / 1e6;
}

/* Process CPU use between a mark and now, in percent of wall time (iperf3's cpu_util_*). */
static void
cpu_util (const QfCpuMark *since,
          gdouble         *user,
          gdouble         *system,
          gdouble         *total)
{
  QfCpuMark now;
  gdouble wall;

  _qf_iperf3_cpu_mark (&now);
  wall = MAX ((now.t_ns - since->t_ns) / 1e9, 1e-3);
  *user = 100.0 * (tv_s (&now.usage.ru_utime) - tv_s (&since->usage.ru_utime)) / wall;
  *system = 100.0 * (tv_s (&now.usage.ru_stime) - tv_s (&since->usage.ru_stime)) / wall;
  *total = *user + *system;
}

void
_qf_iperf3_write_results_head (QfMiniJsonWriter *w,
                               const QfCpuMark  *since,
                               gboolean          tcp_sender)
{
  gdouble user, sys, total;

  cpu_util (since, &user, &sys, &total);
  qf_minijson_writer_begin_object (w);
  qf_minijson_writer_key (w, "cpu_util_total");
  qf_minijson_writer_double (w, total);
  qf_minijson_writer_key (w, "cpu_util_user");
  qf_minijson_writer_double (w, user);
  qf_minijson_writer_key (w, "cpu_util_system");
  qf_minijson_writer_double (w, sys);
  qf_minijson_writer_key (w, "sender_has_retransmits");
  qf_minijson_writer_int (w, tcp_sender ? 1 : -1);
}

/* ---------------------------------------------------------------- results and parameters */

void
_qf_iperf3_write_stream_result (QfMiniJsonWriter *w,
                                const QfBwStream *s,
                                gboolean          tcp,
                                guint64           base_bytes,
                                guint64           base_errors,
                                guint64           base_packets,
                                gint64            base_retrans,
                                gdouble           duration_s)
{
  gint64 retrans = -1;

  if (s->sender && tcp && base_retrans >= 0)
    {
      gint64 now = _qf_bw_tcp_total_retrans (s->fd);
      retrans = now >= 0 ? now - base_retrans : -1;
    }
  qf_minijson_writer_begin_object (w);
  qf_minijson_writer_key (w, "id");
  qf_minijson_writer_int (w, s->id);
  qf_minijson_writer_key (w, "bytes");
  qf_minijson_writer_uint (w, s->bytes - base_bytes);
  qf_minijson_writer_key (w, "retransmits");
  qf_minijson_writer_int (w, retrans);
  qf_minijson_writer_key (w, "jitter");
  qf_minijson_writer_double (w, s->sender ? 0 : s->jitter_s);
  qf_minijson_writer_key (w, "errors");
  qf_minijson_writer_uint (w, s->sender ? 0 : s->errors - base_errors);
  qf_minijson_writer_key (w, "packets");
  qf_minijson_writer_uint (w, s->packets - base_packets);
  qf_minijson_writer_key (w, "start_time");
  qf_minijson_writer_int (w, 0);
  qf_minijson_writer_key (w, "end_time");
  qf_minijson_writer_double (w, duration_s);
  qf_minijson_writer_end_object (w);
}

static gboolean
int_in (const QfMiniJson  *params,
        const char        *key,
        gint64             def,
        gint64             min,
        gint64             max,
        gint64            *out,
        GError           **error)
{
  const QfMiniJson *v = qf_minijson_get (params, key);

  *out = def;
  if (v == NULL)
    return TRUE;
  if (qf_minijson_type (v) != QF_MINIJSON_NUMBER || qf_minijson_int (v, min - 1) < min
      || qf_minijson_int (v, min - 1) > max)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("parameter “%s” is missing a valid value (%lld…%lld)"), key,
                   (long long) min, (long long) max);
      return FALSE;
    }
  *out = qf_minijson_int (v, def);
  return TRUE;
}

gboolean
_qf_iperf3_parse_params (const QfMiniJson  *j,
                         QfIperf3Params    *p,
                         GError           **error)
{
  gint64 v;

  memset (p, 0, sizeof *p);
  if (qf_minijson_is_true (qf_minijson_get (j, "udp")))
    p->udp = TRUE;
  else if (!qf_minijson_is_true (qf_minijson_get (j, "tcp")))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("no supported protocol (tcp or udp) requested"));
      return FALSE;
    }
  p->reverse = qf_minijson_is_true (qf_minijson_get (j, "reverse"));
  p->bidir = qf_minijson_is_true (qf_minijson_get (j, "bidirectional"));
  p->nodelay = qf_minijson_is_true (qf_minijson_get (j, "nodelay"));
  p->udp64 = qf_minijson_is_true (qf_minijson_get (j, "udp_counters_64bit"));
  p->server_output = qf_minijson_is_true (qf_minijson_get (j, "get_server_output"));
  p->auto_len = qf_minijson_is_true (qf_minijson_get (j, "qualify_auto_len"));

  if (!int_in (j, "parallel", 1, 1, QF_IPERF3_MAX_STREAMS, &v, error))
    return FALSE;
  p->parallel = v;
  if (!int_in (j, "time", 10, 0, 86400, &p->time_s, error)
      || !int_in (j, "omit", 0, 0, 600, &p->omit_s, error))
    return FALSE;
  if (p->udp)
    {
      if (!int_in (j, "len", 1460, QF_IPERF3_MIN_UDP_LEN, QF_IPERF3_MAX_UDP_LEN, &v, error))
        return FALSE;
    }
  else if (!int_in (j, "len", 128 * 1024, 1, QF_IPERF3_MAX_TCP_LEN, &v, error))
    return FALSE;
  p->len = v;
  if (!int_in (j, "bandwidth", p->udp ? QF_IPERF3_UDP_DEFAULT_BPS : 0, 0, G_MAXINT64, &v, error))
    return FALSE;
  p->rate_bps = v;
  if (!int_in (j, "window", 0, 0, G_MAXINT32, &v, error))
    return FALSE;
  p->window = v;
  if (qf_minijson_has (j, "num")
      && qf_minijson_type (qf_minijson_get (j, "num")) != QF_MINIJSON_NUMBER)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("parameter “%s” is not a number"), "num");
      return FALSE;
    }
  return TRUE;
}

void
_qf_iperf3_write_params (const QfIperf3Params *p,
                         GString              *out)
{
  QfMiniJsonWriter w;

  qf_minijson_writer_init (&w, out);
  qf_minijson_writer_begin_object (&w);
  qf_minijson_writer_key (&w, p->udp ? "udp" : "tcp");
  qf_minijson_writer_bool (&w, TRUE);
  qf_minijson_writer_key (&w, "omit");
  qf_minijson_writer_int (&w, p->omit_s);
  qf_minijson_writer_key (&w, "time");
  qf_minijson_writer_int (&w, p->time_s);
  qf_minijson_writer_key (&w, "num");
  qf_minijson_writer_int (&w, 0);
  qf_minijson_writer_key (&w, "blockcount");
  qf_minijson_writer_int (&w, 0);
  qf_minijson_writer_key (&w, "parallel");
  qf_minijson_writer_int (&w, p->parallel);
  if (p->reverse)
    {
      qf_minijson_writer_key (&w, "reverse");
      qf_minijson_writer_bool (&w, TRUE);
    }
  if (p->bidir)
    {
      qf_minijson_writer_key (&w, "bidirectional");
      qf_minijson_writer_bool (&w, TRUE);
    }
  if (p->window > 0)
    {
      qf_minijson_writer_key (&w, "window");
      qf_minijson_writer_int (&w, p->window);
    }
  if (p->nodelay)
    {
      qf_minijson_writer_key (&w, "nodelay");
      qf_minijson_writer_bool (&w, TRUE);
    }
  qf_minijson_writer_key (&w, "len");
  qf_minijson_writer_int (&w, p->len);
  if (p->auto_len)
    {
      /* Our responder then sends 16 × MSS of each stream in -R; iperf3 ignores unknown keys. */
      qf_minijson_writer_key (&w, "qualify_auto_len");
      qf_minijson_writer_bool (&w, TRUE);
    }
  if (p->rate_bps > 0)
    {
      qf_minijson_writer_key (&w, "bandwidth");
      qf_minijson_writer_uint (&w, p->rate_bps);
    }
  qf_minijson_writer_key (&w, "pacing_timer");
  qf_minijson_writer_int (&w, 1000);
  qf_minijson_writer_key (&w, "client_version");
  qf_minijson_writer_string (&w, "qualify-" PACKAGE_VERSION);
  qf_minijson_writer_end_object (&w);
}
