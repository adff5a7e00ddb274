/* qf-responder-emulate.c — the latency responder's emulated poor link (src/engine), for
 * training demonstrations and tests: each ping-pong or cycle reply can be held for a delay
 * ± uniform jitter and, on UDP, dropped with a probability. It decides a reply's fate and holds
 * it until it is due; the connections and peers hand replies over, the loop sends them when due
 * (qf-responder-private.h). It knows nothing of sockets. With bloat=MS the link has a queue
 * that grows with load: the bandwidth server's rate, read every 100 ms, fills it in proportion
 * to the emulated link's rate (a saturated link adds the whole bloat), and it fills and drains
 * over a few tenths of a second, as a switch's buffer behind a file copy does.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

#define MAX_HELD       16384
#define MAX_HELD_BYTES (32 * 1024 * 1024)
#define LOAD_PERIOD_NS (100 * QF_NSEC_PER_MSEC)
#define QUEUE_FOLLOW   0.3    /* of the way to the load's level per period */

gboolean
qf_responder_emulation_parse (const char            *text,
                              QfResponderEmulation  *out,
                              GError               **error)
{
  g_auto(GStrv) parts = NULL;

  memset (out, 0, sizeof *out);
  if (text == NULL || text[0] == '\0')
    return TRUE;
  parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *eq = strchr (parts[i], '=');
      g_autofree char *key = NULL;
      char *end = NULL;
      gdouble value;

      if (eq == NULL)
        goto bad;
      key = g_strndup (parts[i], eq - parts[i]);
      value = g_ascii_strtod (eq + 1, &end);
      if (end == eq + 1 || *end != '\0' || !(value >= 0))
        goto bad;
      if (g_str_equal (key, "delay") && value <= 10000)
        out->delay_ms = value;
      else if (g_str_equal (key, "jitter") && value <= 10000)
        out->jitter_ms = value;
      else if (g_str_equal (key, "loss") && value <= 100)
        out->loss_pct = value;
      else if (g_str_equal (key, "bloat") && value <= 10000)
        out->bloat_ms = value;
      else if (g_str_equal (key, "link") && value > 0 && value <= 1e6)
        out->link_mbps = value;
      else
        goto bad;
    }
  return TRUE;

bad:
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
               _("Cannot read the emulation “%s”: expected delay=MS,jitter=MS,loss=PCT,"
                 "bloat=MS,link=MBPS (delay, jitter and bloat up to 10000 ms, loss up to 100 %%)"),
               text);
  return FALSE;
}

/* Checks the configuration and allocates the held replies' heap (before the run starts). */
gboolean
_qf_responder_emulator_init (QfResponderEmulator         *em,
                             const QfResponderEmulation  *config,
                             QfResponderLoadFunc          load_bytes,
                             gpointer                     load_data,
                             GError                     **error)
{
  if (config->delay_ms < 0 || config->jitter_ms < 0 || config->loss_pct < 0
      || config->loss_pct > 100 || config->bloat_ms < 0 || config->link_mbps < 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The emulated delay, jitter and loss must be positive and loss at most 100 %%"));
      return FALSE;
    }
  em->config = *config;
  if (em->config.link_mbps <= 0)
    em->config.link_mbps = 100;
  em->active = config->delay_ms > 0 || config->jitter_ms > 0 || config->loss_pct > 0
               || config->bloat_ms > 0;
  em->load_bytes = load_bytes;
  em->load_data = load_data;
  em->load_at_ns = 0;
  em->load_last = 0;
  em->queue_ms = 0;
  em->held = g_new0 (QfHeldReply, MAX_HELD);
  em->n_held = 0;
  em->held_bytes = 0;
  em->rand = g_rand_new ();
  return TRUE;
}

void
_qf_responder_emulator_clear (QfResponderEmulator *em)
{
  for (guint i = 0; i < em->n_held; i++)
    g_free (em->held[i].data);
  em->n_held = 0;
  em->held_bytes = 0;
  g_clear_pointer (&em->held, g_free);
  g_clear_pointer (&em->rand, g_rand_free);
}

/* The emulated queue's delay at now_ns: it moves towards bloat_ms × the load's share of the
 * link's rate, read at most every LOAD_PERIOD_NS. */
static gdouble
queue_ms (QfResponderEmulator *em,
          gint64               now_ns)
{
  guint64 bytes;
  gdouble mbps, level;

  if (em->config.bloat_ms <= 0 || em->load_bytes == NULL)
    return 0;
  if (em->load_at_ns != 0 && now_ns - em->load_at_ns < LOAD_PERIOD_NS)
    return em->queue_ms;
  bytes = em->load_bytes (em->load_data);
  if (em->load_at_ns != 0)
    {
      /* A counter that restarted (a new test) moved what it holds now. */
      guint64 moved = bytes >= em->load_last ? bytes - em->load_last : bytes;
      mbps = moved * 8.0 / ((now_ns - em->load_at_ns) / 1e9) / 1e6;
      level = em->config.bloat_ms * MIN (mbps / em->config.link_mbps, 1.0);
      /* One step per period that passed: a queue left alone drains as it would have. */
      em->queue_ms = level + (em->queue_ms - level)
                             * pow (1 - QUEUE_FOLLOW, (gdouble) (now_ns - em->load_at_ns) / LOAD_PERIOD_NS);
    }
  em->load_at_ns = now_ns;
  em->load_last = bytes;
  return em->queue_ms;
}

/* When a reply to a request received at now_ns is due: after the delay ± jitter and the
 * emulated queue. */
gint64
_qf_responder_emulator_due_ns (QfResponderEmulator *em,
                               gint64               now_ns)
{
  const QfResponderEmulation *e = &em->config;
  gdouble ms = e->delay_ms + queue_ms (em, now_ns);

  if (e->jitter_ms > 0)
    ms += g_rand_double_range (em->rand, -e->jitter_ms, e->jitter_ms);
  return now_ns + (ms > 0 ? (gint64) (ms * QF_NSEC_PER_MSEC) : 0);
}

/* Whether the link loses this (UDP) reply. */
gboolean
_qf_responder_emulator_loses (QfResponderEmulator *em)
{
  return em->config.loss_pct > 0 && g_rand_double (em->rand) * 100.0 < em->config.loss_pct;
}

static void
heap_swap (QfHeldReply *a,
           QfHeldReply *b)
{
  QfHeldReply t = *a;
  *a = *b;
  *b = t;
}

/* Holds a copy of reply->data until reply->due_ns; FALSE when too many replies or bytes are held
 * already (the caller drops the reply or the connection). */
gboolean
_qf_responder_emulator_hold (QfResponderEmulator *em,
                             const QfHeldReply   *reply)
{
  guint i;

  if (em->n_held >= MAX_HELD || em->held_bytes + reply->len > MAX_HELD_BYTES)
    return FALSE;
  i = em->n_held++;
  em->held[i] = *reply;
  em->held[i].data = g_memdup2 (reply->data, reply->len);
  em->held_bytes += reply->len;
  while (i > 0 && em->held[(i - 1) / 2].due_ns > em->held[i].due_ns)
    {
      heap_swap (&em->held[(i - 1) / 2], &em->held[i]);
      i = (i - 1) / 2;
    }
  return TRUE;
}

/* Takes the earliest held reply if it is due at now_ns; the caller sends it and frees its data. */
gboolean
_qf_responder_emulator_take_due (QfResponderEmulator *em,
                                 gint64               now_ns,
                                 QfHeldReply         *reply)
{
  guint i = 0;

  if (em->n_held == 0 || em->held[0].due_ns > now_ns)
    return FALSE;
  *reply = em->held[0];
  em->held[0] = em->held[--em->n_held];
  em->held_bytes -= reply->len;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < em->n_held && em->held[l].due_ns < em->held[m].due_ns)
        m = l;
      if (r < em->n_held && em->held[r].due_ns < em->held[m].due_ns)
        m = r;
      if (m == i)
        break;
      heap_swap (&em->held[i], &em->held[m]);
      i = m;
    }
  return TRUE;
}
