/* qf-responder-udp.c — the latency responder's UDP peers (src/engine): sockperf ping-pong and
 * our cycle protocol (qf-cycle.h) in datagrams, a peer known by its address and ended after
 * UDP_IDLE_END_NS of silence, and the access token without state before a peer proves it
 * (qf-auth.h). A malformed, truncated or oversized datagram is dropped and logged.
 * See qf-responder-private.h for how the responder's files fit together.
 */
#include "config.h"

#include <string.h>

#include "qf-clock.h"
#include "qf-cycle.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

#define UDP_IDLE_END_NS    (2 * QF_NSEC_PER_SEC)   /* a UDP test ends after 2 s of silence */
#define SPIN_IDLE_END_NS   (1 * QF_NSEC_PER_SEC)
#define UDP_READS_PER_WAKE 16
#define UDP_REFUSALS_PER_S 100   /* refusals are no larger than what they answer; still few */

static QfResponderPeer *
udp_peer_find (QfResponder           *self,
               const struct sockaddr *addr,
               socklen_t              len,
               gboolean               create,
               gint64                 now_ns)
{
  QfResponderPeer *free_slot = NULL;

  for (guint i = 0; i < self->n_peers; i++)
    {
      QfResponderPeer *p = &self->peers[i];
      if (!p->in_use)
        {
          if (free_slot == NULL)
            free_slot = p;
          continue;
        }
      if (p->addr_len == len && memcmp (&p->addr, addr, len) == 0)
        return p;
    }
  if (free_slot == NULL || !create)
    return NULL;
  memset (free_slot, 0, sizeof *free_slot);
  free_slot->in_use = TRUE;
  memcpy (&free_slot->addr, addr, len);
  free_slot->addr_len = len;
  free_slot->first_ns = now_ns;
  self->stats.udp_peers++;
  return free_slot;
}

static void
udp_peer_end (QfResponder     *self,
              QfResponderPeer *p,
              const char      *why)
{
  g_autofree char *who = qf_net_address_to_string ((struct sockaddr *) &p->addr, TRUE);

  if (p->messages > 0)
    _qf_responder_log (self, _("UDP %s from %s: %llu messages in %.1f s%s%s%s"),
                       p->cycle ? _("cycle test") : _("ping-pong"), who,
                       (unsigned long long) p->messages, (p->last_ns - p->first_ns) / 1e9,
                       p->spin ? _(", busy-polled") : "", why ? "; " : "", why ? why : "");
  p->in_use = FALSE;
}

void
_qf_responder_udp_end_all (QfResponder *self)
{
  for (guint i = 0; self->peers != NULL && i < self->n_peers; i++)
    if (self->peers[i].in_use)
      udp_peer_end (self, &self->peers[i], NULL);
}

/* UDP refusals answer a datagram at least as large; at most UDP_REFUSALS_PER_S a second, so the
 * responder cannot be used to reflect a flood. */
static void
refuse_udp (QfResponder           *self,
            QfAuthReason           reason,
            guint                  value,
            gsize                  request_len,
            const struct sockaddr *addr,
            socklen_t              addr_len,
            gint64                 now_ns)
{
  guint8 msg[QF_AUTH_HEADER_SIZE];
  gint64 second = now_ns / QF_NSEC_PER_SEC;

  if (request_len < sizeof msg)
    return;
  if (second != self->refusal_second)
    {
      self->refusal_second = second;
      self->refusals_in_second = 0;
    }
  if (self->refusals_in_second++ >= UDP_REFUSALS_PER_S)
    return;
  qf_auth_write (msg, QF_AUTH_REFUSE, reason, value, sizeof msg);
  sendto (self->udp_fd, msg, sizeof msg, MSG_DONTWAIT, addr, addr_len);
}

static void
send_accept (QfResponder           *self,
             const struct sockaddr *addr,
             socklen_t              addr_len)
{
  guint8 msg[QF_AUTH_HEADER_SIZE];

  qf_auth_write (msg, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
  sendto (self->udp_fd, msg, QF_AUTH_HEADER_SIZE, MSG_DONTWAIT, addr, addr_len);
}

/* One access-token datagram (qf-auth.h). Keeps no state until the token is proved; every
 * answer is smaller than the datagram it answers. The token is checked by qf-auth.c
 * (qf_auth_server_check), as on TCP and the bandwidth port. */
static void
udp_auth_message (QfResponder            *self,
                  const guint8           *buf,
                  const QfAuthMessage    *m,
                  const struct sockaddr  *addr,
                  socklen_t               addr_len,
                  gint64                  now_ns)
{
  guint8 challenge[QF_AUTH_CHALLENGE_SIZE];
  QfAuthAnswer answer = {
    .channel = QF_AUTH_CHANNEL_UDP,
    .echoed = buf + QF_AUTH_HEADER_SIZE,
    .mac = buf + QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE,
    .addr = addr,
    .addr_len = addr_len,
    .now_ns = now_ns,
  };
  QfResponderPeer *p;

  if (m->kind != QF_AUTH_HELLO && m->kind != QF_AUTH_RESPONSE)
    return;
  if (qf_auth_server_admit (&self->auth, TRUE) == QF_AUTH_ADMIT_OPEN)   /* no token needed */
    {
      send_accept (self, addr, addr_len);
      return;
    }
  if (m->kind == QF_AUTH_HELLO)
    {
      /* Stateless: cannot fail (qf_auth_server_challenge). */
      qf_auth_server_challenge (&self->auth, QF_AUTH_CHANNEL_UDP, addr, addr_len, now_ns,
                                challenge, NULL);
      sendto (self->udp_fd, challenge, QF_AUTH_CHALLENGE_SIZE, MSG_DONTWAIT, addr, addr_len);
      return;
    }

  if (!qf_auth_server_check (&self->auth, &answer))
    {
      _qf_responder_log_reject (self, addr, _("wrong access token"));
      refuse_udp (self, QF_AUTH_REASON_TOKEN_WRONG, 0, QF_AUTH_RESPONSE_SIZE, addr, addr_len, now_ns);
      return;
    }
  p = udp_peer_find (self, addr, addr_len, TRUE, now_ns);
  if (p == NULL)
    {
      _qf_responder_log_reject (self, addr, _("too many clients (see --max-clients)"));
      refuse_udp (self, QF_AUTH_REASON_BUSY, self->config.max_clients, QF_AUTH_RESPONSE_SIZE,
                  addr, addr_len, now_ns);
      return;
    }
  p->authed = TRUE;
  p->last_ns = now_ns;
  send_accept (self, addr, addr_len);
}

/* The emulated link's fate of a reply: lost, held until due, or (too many held) dropped. */
static void
udp_emulate (QfResponder           *self,
             const guint8          *buf,
             gsize                  len,
             const struct sockaddr *addr,
             socklen_t              addr_len,
             gint64                 now_ns)
{
  QfHeldReply reply = { .data = (guint8 *) buf, .len = len, .addr_len = addr_len };

  if (_qf_responder_emulator_loses (&self->emulator))
    {
      self->stats.emulated_drops++;
      return;
    }
  reply.due_ns = _qf_responder_emulator_due_ns (&self->emulator, now_ns);
  memcpy (&reply.addr, addr, addr_len);
  if (!_qf_responder_emulator_hold (&self->emulator, &reply))
    self->stats.emulated_drops++;
}

/* A reply the emulation held, now due. */
void
_qf_responder_udp_send_held (QfResponder       *self,
                             const QfHeldReply *reply)
{
  sendto (self->udp_fd, reply->data, reply->len, MSG_DONTWAIT,
          (const struct sockaddr *) &reply->addr, reply->addr_len);
}

/* Whether a datagram is a request we answer, with its header read into *h (ping-pong) or its
 * cycle flag set; a malformed one is logged. */
static gboolean
udp_request (QfResponder           *self,
             const guint8          *buf,
             gsize                  len,
             const struct sockaddr *addr,
             QfSockperfHeader      *h,
             gboolean              *cycle)
{
  *cycle = qf_cycle_packet_is_cycle (buf, len);
  if (*cycle)
    return buf[5] == QF_CYCLE_KIND_REQUEST;
  if (len < QF_SOCKPERF_HEADER_SIZE)
    {
      _qf_responder_log_reject (self, addr, _("a truncated message"));
      return FALSE;
    }
  qf_sockperf_header_read (buf, h);
  if (h->length != len)
    {
      _qf_responder_log_reject (self, addr, _("a message whose length field does not match the "
                                              "datagram"));
      return FALSE;
    }
  return TRUE;
}

/* The peer a request comes from, if it may be served (the token, the max-clients limit, the
 * test's time limit); else NULL, the sender refused or its test ended. */
static QfResponderPeer *
udp_serving_peer (QfResponder           *self,
                  gsize                  len,
                  const struct sockaddr *addr,
                  socklen_t              addr_len,
                  gint64                 now_ns)
{
  gboolean need_token = qf_auth_server_admit (&self->auth, FALSE) == QF_AUTH_ADMIT_REFUSE;
  QfResponderPeer *p = udp_peer_find (self, addr, addr_len, !need_token, now_ns);

  if (need_token && (p == NULL || !p->authed))
    {
      _qf_responder_log_reject (self, addr, _("no access token (a client that cannot prove one, "
                                              "such as sockperf, needs serve --allow-classic)"));
      refuse_udp (self, QF_AUTH_REASON_TOKEN_REQUIRED, 0, len, addr, addr_len, now_ns);
      return NULL;
    }
  if (p == NULL)
    {
      _qf_responder_log_reject (self, addr, _("too many clients (see --max-clients)"));
      refuse_udp (self, QF_AUTH_REASON_BUSY, self->config.max_clients, len, addr, addr_len, now_ns);
      return NULL;
    }
  p->last_ns = now_ns;
  if (p->expired)
    return NULL;
  if (now_ns - p->first_ns > (gint64) self->config.max_test_seconds * QF_NSEC_PER_SEC)
    {
      g_autofree char *who = qf_net_address_to_string (addr, TRUE);
      p->expired = TRUE;
      _qf_responder_log (self, _("UDP test from %s ended: longer than %u s (see "
                                 "--max-test-seconds)"), who, self->config.max_test_seconds);
      return NULL;
    }
  return p;
}

/* One datagram: on the measured path, answered in place in the receive buffer. */
static void
udp_datagram (QfResponder            *self,
              guint8                 *buf,
              gsize                   len,
              const struct sockaddr  *addr,
              socklen_t               addr_len,
              gint64                  now_ns)
{
  QfResponderPeer *p;
  gboolean cycle;
  QfSockperfHeader h = { 0 };
  QfAuthMessage am;

  if (qf_auth_parse (buf, len, &am))
    {
      udp_auth_message (self, buf, &am, addr, addr_len, now_ns);
      return;
    }
  if (!udp_request (self, buf, len, addr, &h, &cycle))
    return;
  p = udp_serving_peer (self, len, addr, addr_len, now_ns);
  if (p == NULL)
    return;

  if (cycle)
    {
      p->cycle = TRUE;
      buf[5] = QF_CYCLE_KIND_REPLY;
      len = QF_CYCLE_PACKET_SIZE;
    }
  else
    {
      guint16 flags;

      if (!(h.flags & QF_SOCKPERF_FLAG_CLIENT) || (h.flags & QF_SOCKPERF_FLAG_WARMUP)
          || !(h.flags & QF_SOCKPERF_FLAG_PONG_REQUEST))
        return;
      if (_qf_responder_wants_spin (self, h.flags))
        p->spin = self->spin_udp = TRUE;
      flags = GUINT16_TO_BE (h.flags & ~QF_SOCKPERF_FLAG_CLIENT);
      memcpy (buf + 8, &flags, 2);
    }
  p->messages++;
  self->stats.messages++;

  if (self->emulator.active)
    udp_emulate (self, buf, len, addr, addr_len, now_ns);
  else
    qf_net_sendto (self->udp_fd, buf, len, MSG_DONTWAIT, addr, addr_len);
}

/* Reads and answers up to UDP_READS_PER_WAKE datagrams. */
void
_qf_responder_udp_readable (QfResponder *self)
{
  for (guint i = 0; i < UDP_READS_PER_WAKE; i++)
    {
      struct sockaddr_storage ss;
      socklen_t len = sizeof ss;
      ssize_t n;

      n = qf_net_recvfrom (self->udp_fd, self->udp_buf, QF_RESPONDER_UDP_BUFFER_SIZE,
                           MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *) &ss, &len);
      if (n < 0)
        return;
      if ((gsize) n > self->max_msg || (gsize) n > QF_RESPONDER_UDP_BUFFER_SIZE)
        {
          _qf_responder_log_reject (self, (struct sockaddr *) &ss, _("an oversized message"));
          continue;
        }
      udp_datagram (self, self->udp_buf, n, (struct sockaddr *) &ss, len, qf_clock_now_ns ());
    }
}

/* Ends the peers that went quiet; returns whether one that asked for busy-polling is active. */
gboolean
_qf_responder_udp_housekeeping (QfResponder *self,
                                gint64       now_ns)
{
  gboolean spin = FALSE;

  for (guint i = 0; i < self->n_peers; i++)
    {
      QfResponderPeer *p = &self->peers[i];
      if (!p->in_use)
        continue;
      if (now_ns - p->last_ns > UDP_IDLE_END_NS)
        {
          udp_peer_end (self, p, NULL);
          continue;
        }
      spin |= p->spin && !p->expired && now_ns - p->last_ns < SPIN_IDLE_END_NS;
    }
  return spin;
}
