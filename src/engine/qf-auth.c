/* qf-auth.c — the responder's shared access token and its HMAC challenge (src/engine).
 * See qf-auth.h for the wire format.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "qf-auth.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-net.h"

#define TCP_TIMEOUT_NS    (5 * QF_NSEC_PER_SEC)
#define UDP_WAIT_NS       (400 * QF_NSEC_PER_MSEC)
#define UDP_ATTEMPTS      5

/* POSIX ACL entries as the kernel stores them in system.posix_acl_access (little-endian). */
#define ACL_XATTR_VERSION 2
#define ACL_USER          0x02
#define ACL_GROUP_OBJ     0x04
#define ACL_GROUP         0x08
#define ACL_MASK          0x10
#define ACL_OTHER         0x20
#define ACL_MAX_ENTRIES   64

static guint32
acl_word (const guint8 *at,
          gsize         size)
{
  guint32 v32 = 0;
  guint16 v16 = 0;

  if (size == 2)
    {
      memcpy (&v16, at, 2);
      return GUINT16_FROM_LE (v16);
    }
  memcpy (&v32, at, 4);
  return GUINT32_FROM_LE (v32);
}

/* Whether anyone but the file's owner and this process's user may read or write it. Without an
 * ACL the mode says it (no group or other bits). With one, the group bits of the mode are the
 * ACL's mask, so the entries are read: systemd 254 and later hand a service its credentials as
 * root-owned files, mode 0440, that an ACL lets the service's user alone read. */
static gboolean
readable_by_others (int                fd,
                    const struct stat *st)
{
  guint8 acl[4 + 8 * ACL_MAX_ENTRIES];
  ssize_t n = fgetxattr (fd, "system.posix_acl_access", acl, sizeof acl);
  guint32 mask = 07;

  if (n < 0)
    return errno == ERANGE || (st->st_mode & 077) != 0;
  if (n < 4 || (n - 4) % 8 != 0 || acl_word (acl, 4) != ACL_XATTR_VERSION)
    return TRUE;
  for (ssize_t i = 4; i < n; i += 8)
    if (acl_word (acl + i, 2) == ACL_MASK)
      mask = acl_word (acl + i + 2, 2);
  for (ssize_t i = 4; i < n; i += 8)
    {
      guint32 tag = acl_word (acl + i, 2);
      guint32 perm = acl_word (acl + i + 2, 2) & 06;
      guint32 id = acl_word (acl + i + 4, 4);

      if ((tag == ACL_OTHER && perm != 0) ||
          ((tag == ACL_GROUP_OBJ || tag == ACL_GROUP) && (perm & mask) != 0) ||
          (tag == ACL_USER && (perm & mask) != 0 && id != geteuid ()))
        return TRUE;
    }
  return FALSE;
}

GBytes *
qf_auth_token_load (const char  *path,
                    GError     **error)
{
  guint8 buf[QF_AUTH_TOKEN_MAX + 3];
  struct stat st;
  gsize len = 0;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  /* O_NONBLOCK: a FIFO or device named by mistake must not hang us before fstat () says so. */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, QF_NET_ERROR, errsv == EACCES ? QF_NET_ERROR_PERMISSION
                                                        : QF_NET_ERROR_INVALID,
                   _("Cannot read the access token file %s: %s"), path, g_strerror (errsv));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The access token file %s is not a regular file."), path);
      return NULL;
    }
  if (readable_by_others (fd, &st))
    {
      close (fd);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                   _("The access token file %s can be read by other users (mode %04o): a token "
                     "must be private. Fix: chmod 600 %s"),
                   path, (guint) (st.st_mode & 07777), path);
      return NULL;
    }
  while (len < sizeof buf)
    {
      ssize_t n = read (fd, buf + len, sizeof buf - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          close (fd);
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                       _("Cannot read the access token file %s: %s"), path, g_strerror (errsv));
          return NULL;
        }
      if (n == 0)
        break;
      len += n;
    }
  close (fd);
  if (len > 0 && buf[len - 1] == '\n')
    len--;
  if (len > 0 && buf[len - 1] == '\r')
    len--;
  if (len < QF_AUTH_TOKEN_MIN || len > QF_AUTH_TOKEN_MAX)
    {
      memset (buf, 0, sizeof buf);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The access token in %s must be %u to %u bytes long. Make one with: "
                     "head -c 32 /dev/urandom | base64 > %s && chmod 600 %s"),
                   path, QF_AUTH_TOKEN_MIN, QF_AUTH_TOKEN_MAX, path, path);
      return NULL;
    }
  {
    GBytes *token = g_bytes_new (buf, len);
    memset (buf, 0, sizeof buf);
    return token;
  }
}

void
qf_auth_write (guint8       *buf,
               QfAuthKind    kind,
               QfAuthReason  reason,
               guint         value,
               gsize         total_len)
{
  guint64 seq = GUINT64_TO_BE ((QF_AUTH_MAGIC << 32) | ((guint64) kind << 24)
                               | ((guint64) reason << 16) | MIN (value, 0xffffu));
  guint16 flags = GUINT16_TO_BE (QF_AUTH_FLAG);
  guint32 length = GUINT32_TO_BE ((guint32) total_len);

  memcpy (buf, &seq, 8);
  memcpy (buf + 8, &flags, 2);
  memcpy (buf + 10, &length, 4);
}

gboolean
qf_auth_parse (const guint8  *buf,
               gsize          len,
               QfAuthMessage *msg)
{
  guint64 seq;
  guint16 flags;
  guint32 length;

  if (len < QF_AUTH_HEADER_SIZE)
    return FALSE;
  memcpy (&seq, buf, 8);
  memcpy (&flags, buf + 8, 2);
  memcpy (&length, buf + 10, 4);
  seq = GUINT64_FROM_BE (seq);
  flags = GUINT16_FROM_BE (flags);
  length = GUINT32_FROM_BE (length);
  if (!(flags & QF_AUTH_FLAG) || (seq >> 32) != QF_AUTH_MAGIC || length != len)
    return FALSE;
  msg->kind = (seq >> 24) & 0xff;
  msg->reason = (seq >> 16) & 0xff;
  msg->value = seq & 0xffff;
  switch (msg->kind)
    {
    case QF_AUTH_HELLO:
      return len == QF_AUTH_HELLO_SIZE;
    case QF_AUTH_CHALLENGE:
      return len == QF_AUTH_CHALLENGE_SIZE;
    case QF_AUTH_RESPONSE:
      return len == QF_AUTH_RESPONSE_SIZE;
    case QF_AUTH_ACCEPT:
    case QF_AUTH_REFUSE:
      return len == QF_AUTH_HEADER_SIZE;
    default:
      return FALSE;
    }
}

#define BW_COOKIE_CHARS 36   /* iperf3's cookie: 36 characters and a NUL */

/* HMAC-SHA256 (token, context || 0 || nonce [|| the bandwidth cookie's characters]): the one
 * proof of every port, the context naming the port so an answer for one is useless on another. */
static void
channel_mac (GBytes        *token,
             QfAuthChannel  channel,
             const guint8  *nonce,
             const char    *cookie,
             guint8        *mac)
{
  static const char *const contexts[] = {
    [QF_AUTH_CHANNEL_TCP] = "qualify-latency-auth-1/tcp",
    [QF_AUTH_CHANNEL_UDP] = "qualify-latency-auth-1/udp",
    [QF_AUTH_CHANNEL_BANDWIDTH] = "qualify-bandwidth-auth-1",
  };
  const char *context = contexts[channel];
  gsize token_len = 0;
  const guint8 *key = g_bytes_get_data (token, &token_len);
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256, key, token_len);
  gsize mac_len = QF_AUTH_MAC_SIZE;

  g_hmac_update (hmac, (const guchar *) context, strlen (context) + 1);
  g_hmac_update (hmac, nonce, QF_AUTH_NONCE_SIZE);
  if (channel == QF_AUTH_CHANNEL_BANDWIDTH)
    g_hmac_update (hmac, (const guchar *) cookie, BW_COOKIE_CHARS);
  g_hmac_get_digest (hmac, mac, &mac_len);
  g_hmac_unref (hmac);
}

void
qf_auth_mac (GBytes       *token,
             gboolean      tcp,
             const guint8 *nonce,
             guint8       *mac)
{
  channel_mac (token, tcp ? QF_AUTH_CHANNEL_TCP : QF_AUTH_CHANNEL_UDP, nonce, NULL, mac);
}

gboolean
qf_auth_equal (const guint8 *a,
               const guint8 *b,
               gsize         len)
{
  volatile guint8 diff = 0;

  for (gsize i = 0; i < len; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}

gboolean
qf_auth_random (guint8  *buf,
                gsize    len,
                GError **error)
{
  gsize off = 0;

  while (off < len)
    {
      ssize_t n = getrandom (buf + off, len - off, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          qf_net_set_errno_error (error, errno, _("Cannot draw random numbers"));
          return FALSE;
        }
      off += n;
    }
  return TRUE;
}

void
qf_auth_udp_nonce (const guint8          *secret,
                   guint32                time_s,
                   const struct sockaddr *addr,
                   socklen_t              addr_len,
                   guint8                *nonce)
{
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256, secret, QF_AUTH_MAC_SIZE);
  guint8 digest[QF_AUTH_MAC_SIZE];
  gsize digest_len = sizeof digest;
  guint32 time_be = GUINT32_TO_BE (time_s);

  g_hmac_update (hmac, (const guchar *) &time_be, 4);
  /* Address and port only: the rest of a sockaddr (IPv6 flow info) may change between datagrams. */
  if (addr->sa_family == AF_INET6 && addr_len >= sizeof (struct sockaddr_in6))
    {
      const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) addr;
      g_hmac_update (hmac, (const guchar *) &in6->sin6_addr, sizeof in6->sin6_addr);
      g_hmac_update (hmac, (const guchar *) &in6->sin6_port, sizeof in6->sin6_port);
    }
  else if (addr->sa_family == AF_INET && addr_len >= sizeof (struct sockaddr_in))
    {
      const struct sockaddr_in *in = (const struct sockaddr_in *) addr;
      g_hmac_update (hmac, (const guchar *) &in->sin_addr, sizeof in->sin_addr);
      g_hmac_update (hmac, (const guchar *) &in->sin_port, sizeof in->sin_port);
    }
  g_hmac_get_digest (hmac, digest, &digest_len);
  g_hmac_unref (hmac);
  memcpy (nonce, &time_be, 4);
  memcpy (nonce + 4, digest, QF_AUTH_NONCE_SIZE - 4);
}

/* ---- the server's side ------------------------------------------------------------------ */

gboolean
qf_auth_server_init (QfAuthServer  *auth,
                     GBytes        *token,
                     gboolean       allow_classic,
                     GError       **error)
{
  g_return_val_if_fail (auth != NULL, FALSE);

  memset (auth, 0, sizeof *auth);
  auth->allow_classic = allow_classic;
  auth->start_ns = qf_clock_now_ns ();
  if (token == NULL)
    return TRUE;
  auth->token = g_bytes_ref (token);
  return qf_auth_random (auth->udp_secret, sizeof auth->udp_secret, error);
}

void
qf_auth_server_clear (QfAuthServer *auth)
{
  g_clear_pointer (&auth->token, g_bytes_unref);
  memset (auth->udp_secret, 0, sizeof auth->udp_secret);
}

/* The clock of the UDP nonces: seconds since the server started. */
static guint32
udp_seconds (const QfAuthServer *auth,
             gint64              now_ns)
{
  return (guint32) ((now_ns - auth->start_ns) / QF_NSEC_PER_SEC);
}

gboolean
qf_auth_server_challenge (const QfAuthServer     *auth,
                          QfAuthChannel           channel,
                          const struct sockaddr  *addr,
                          socklen_t               addr_len,
                          gint64                  now_ns,
                          guint8                 *challenge,
                          GError                **error)
{
  guint8 *nonce = challenge + QF_AUTH_HEADER_SIZE;

  g_return_val_if_fail (channel != QF_AUTH_CHANNEL_BANDWIDTH, FALSE);

  qf_auth_write (challenge, QF_AUTH_CHALLENGE, 0, 0, QF_AUTH_CHALLENGE_SIZE);
  if (channel == QF_AUTH_CHANNEL_TCP)
    return qf_auth_random (nonce, QF_AUTH_NONCE_SIZE, error);
  qf_auth_udp_nonce (auth->udp_secret, udp_seconds (auth, now_ns), addr, addr_len, nonce);
  return TRUE;
}

gboolean
qf_auth_server_check (const QfAuthServer *auth,
                      const QfAuthAnswer *answer)
{
  guint8 expected[QF_AUTH_NONCE_SIZE], mac[QF_AUTH_MAC_SIZE];
  const guint8 *nonce = answer->issued;
  gboolean good = TRUE;

  g_return_val_if_fail (auth->token != NULL, FALSE);

  if (answer->channel == QF_AUTH_CHANNEL_UDP)
    {
      /* The server kept nothing: the nonce that came back must be its own for this address,
       * made at most QF_AUTH_NONCE_LIFETIME_S ago. */
      guint32 now_s = udp_seconds (auth, answer->now_ns), then_s;

      memcpy (&then_s, answer->echoed, 4);
      then_s = GUINT32_FROM_BE (then_s);
      qf_auth_udp_nonce (auth->udp_secret, then_s, answer->addr, answer->addr_len, expected);
      good = then_s <= now_s && now_s - then_s <= QF_AUTH_NONCE_LIFETIME_S;
      nonce = expected;
    }
  if (answer->echoed != NULL)
    good &= qf_auth_equal (answer->echoed, nonce, QF_AUTH_NONCE_SIZE);
  channel_mac (auth->token, answer->channel, nonce, answer->cookie, mac);
  good &= qf_auth_equal (answer->mac, mac, QF_AUTH_MAC_SIZE);
  return good;
}

gboolean
qf_auth_refusal (const guint8  *buf,
                 gsize          len,
                 const char    *peer,
                 GError       **error)
{
  QfAuthMessage msg;

  if (!qf_auth_parse (buf, len, &msg) || msg.kind != QF_AUTH_REFUSE)
    return FALSE;
  switch (msg.reason)
    {
    case QF_AUTH_REASON_TOKEN_REQUIRED:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                   _("The responder %s requires an access token. Type the pairing code the helper "
                     "machine shows (wizard: the code field on the Network page; command line: "
                     "--pairing-code CODE), or give the token file of `qualify-cli serve "
                     "--token-file` with --token-file FILE."), peer);
      break;
    case QF_AUTH_REASON_TOKEN_WRONG:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                   _("The responder %s refused the access token: it does not match its pairing "
                     "code or token file. Type the code the helper machine shows now (a new "
                     "code is drawn each time helper mode starts), or copy its token file here "
                     "again."), peer);
      break;
    case QF_AUTH_REASON_BUSY:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   qf_ngettext ("Responder %s busy: %u client at most (serve --max-clients); try "
                             "again later, or raise --max-clients on the helper machine.",
                             "Responder %s busy: %u clients at most (serve --max-clients); try "
                             "again later, or raise --max-clients on the helper machine.",
                             msg.value), peer, msg.value);
      break;
    case QF_AUTH_REASON_NONE:
    default:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("The responder %s refused this client (reason %u)."), peer, msg.reason);
      break;
    }
  return TRUE;
}

/* Waits for one control message (TCP: the next message on the stream; UDP: skips datagrams that
 * are not ours). Returns its length, 0 on timeout, -1 with error set. */
static gssize
read_control (int          fd,
              gboolean     tcp,
              gboolean     want_challenge,
              guint8      *buf,
              gint64       deadline_ns,
              const char  *peer,
              const gint  *cancel,
              GError     **error)
{
  gsize have = 0, want = QF_AUTH_HEADER_SIZE;

  for (;;)
    {
      gint64 now = qf_clock_now_ns ();
      struct pollfd pfd = { fd, POLLIN, 0 };
      ssize_t n;

      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
          return -1;
        }
      if (now >= deadline_ns)
        return 0;
      if (poll (&pfd, 1, (int) MIN ((deadline_ns - now) / QF_NSEC_PER_MSEC + 1, 100)) <= 0)
        continue;
      n = recv (fd, buf + have, tcp ? want - have : QF_AUTH_MAX_SIZE, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0 && errno == ECONNREFUSED && !tcp)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                       _("Nothing answers on %s (UDP port unreachable). Is `qualify-cli serve` "
                         "running there?"), peer);
          return -1;
        }
      if (n < 0)
        {
          qf_net_set_errno_error (error, errno, _("The connection to %s broke"), peer);
          return -1;
        }
      if (n == 0 && tcp)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                       _("The responder %s closed the connection during the access-token "
                         "exchange."), peer);
          return -1;
        }
      if (!tcp)
        {
          QfAuthMessage msg;
          /* A second CHALLENGE answers a HELLO sent again: not the answer awaited now. */
          if (qf_auth_parse (buf, n, &msg) && (want_challenge || msg.kind != QF_AUTH_CHALLENGE))
            return n;
          continue;
        }
      have += n;
      if (have == QF_AUTH_HEADER_SIZE && want == QF_AUTH_HEADER_SIZE)
        {
          guint32 length;
          memcpy (&length, buf + 10, 4);
          length = GUINT32_FROM_BE (length);
          if (length < QF_AUTH_HEADER_SIZE || length > QF_AUTH_MAX_SIZE)
            {
              g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                           _("%s answered the access-token exchange with a message of %u bytes: "
                             "it is not `qualify-cli serve`."), peer, length);
              return -1;
            }
          want = length;
        }
      if (have == want)
        return have;
    }
}

/* Sends msg and waits for the answer (UDP: sent again on silence). */
static gssize
exchange (int           fd,
          gboolean      tcp,
          const guint8 *msg,
          gsize         len,
          guint8       *answer,
          const char   *peer,
          const gint   *cancel,
          GError      **error)
{
  guint attempts = tcp ? 1 : UDP_ATTEMPTS;

  for (guint i = 0; i < attempts; i++)
    {
      gssize got;

      if (send (fd, msg, len, MSG_NOSIGNAL) != (ssize_t) len)
        {
          int errsv = errno;

          /* A refusal may already be waiting (the responder closed after it). */
          if (tcp && recv (fd, answer, QF_AUTH_HEADER_SIZE, MSG_DONTWAIT) == QF_AUTH_HEADER_SIZE
              && qf_auth_refusal (answer, QF_AUTH_HEADER_SIZE, peer, error))
            return -1;
          if (errsv == ECONNREFUSED)
            g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                         _("Nothing answers on %s. Is `qualify-cli serve` running there?"), peer);
          else
            qf_net_set_errno_error (error, errsv, _("The connection to %s broke"), peer);
          return -1;
        }
      got = read_control (fd, tcp, len == QF_AUTH_HELLO_SIZE, answer,
                          qf_clock_now_ns () + (tcp ? TCP_TIMEOUT_NS : UDP_WAIT_NS),
                          peer, cancel, error);
      if (got != 0)
        return got;
    }
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
               _("%s does not answer the access-token challenge: it is not `qualify-cli serve` "
                 "(stock sockperf cannot prove a token), or an older one. Run `qualify-cli serve` "
                 "there, or measure without --token-file."), peer);
  return -1;
}

gboolean
qf_auth_client_handshake (int          fd,
                          gboolean     tcp,
                          GBytes      *token,
                          const char  *peer,
                          const gint  *cancel,
                          GError     **error)
{
  guint8 out[QF_AUTH_MAX_SIZE] = { 0 }, in[QF_AUTH_MAX_SIZE];
  QfAuthMessage msg = { 0 };
  gssize got;

  g_return_val_if_fail (token != NULL, FALSE);

  for (guint round = 0; round < 2; round++)
    {
      if (round == 0)
        qf_auth_write (out, QF_AUTH_HELLO, 0, 0, QF_AUTH_HELLO_SIZE);
      got = exchange (fd, tcp, out, round == 0 ? QF_AUTH_HELLO_SIZE : QF_AUTH_RESPONSE_SIZE, in,
                      peer, cancel, error);
      if (got < 0)
        return FALSE;
      if (qf_auth_refusal (in, got, peer, error))
        return FALSE;
      if (!qf_auth_parse (in, got, &msg))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                       _("%s answered the access-token exchange with something else: it is not "
                         "`qualify-cli serve`."), peer);
          return FALSE;
        }
      if (msg.kind == QF_AUTH_ACCEPT)
        return TRUE;
      if (round == 1 || msg.kind != QF_AUTH_CHALLENGE)
        break;
      /* RESPONSE: the nonce back (the UDP server keeps no state) and the proof. */
      memset (out, 0, sizeof out);
      qf_auth_write (out, QF_AUTH_RESPONSE, 0, 0, QF_AUTH_RESPONSE_SIZE);
      memcpy (out + QF_AUTH_HEADER_SIZE, in + QF_AUTH_HEADER_SIZE, QF_AUTH_NONCE_SIZE);
      qf_auth_mac (token, tcp, in + QF_AUTH_HEADER_SIZE,
                   out + QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE);
    }
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
               _("%s answered the access-token exchange out of order: it is not "
                 "`qualify-cli serve`."), peer);
  return FALSE;
}

/* ---- the bandwidth port ------------------------------------------------------------------- */

void
qf_auth_bw_mark_cookie (char *cookie)
{
  memcpy (cookie, QF_AUTH_BW_COOKIE_MARK, strlen (QF_AUTH_BW_COOKIE_MARK));
}

gboolean
qf_auth_bw_cookie_is_marked (const char *cookie)
{
  return strncmp (cookie, QF_AUTH_BW_COOKIE_MARK, strlen (QF_AUTH_BW_COOKIE_MARK)) == 0;
}

/* Sends or receives exactly len bytes by the deadline (qf_net_read_exact/qf_net_write_exact),
 * with the failure worded for the access-token exchange. */
static gboolean
io_exact (int          fd,
          gboolean     sending,
          guint8      *buf,
          gsize        len,
          gint64       deadline_ns,
          const gint  *stop,
          GError     **error)
{
  int errsv = 0;
  QfNetIoStatus status = sending ? qf_net_write_exact (fd, buf, len, deadline_ns, stop, &errsv)
                                 : qf_net_read_exact (fd, buf, len, deadline_ns, stop, &errsv);

  switch (status)
    {
    case QF_NET_IO_DONE:
      return TRUE;
    case QF_NET_IO_CANCELLED:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
      break;
    case QF_NET_IO_TIMED_OUT:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("The peer stopped answering during the access-token exchange."));
      break;
    case QF_NET_IO_CLOSED:
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("The peer closed the connection during the access-token exchange."));
      break;
    case QF_NET_IO_FAILED:
    default:
      qf_net_set_errno_error (error, errsv, _("The access-token exchange failed"));
      break;
    }
  return FALSE;
}

gboolean
qf_auth_bw_challenge (guint8  *challenge,
                      GError **error)
{
  challenge[0] = QF_AUTH_BW_CHALLENGE_STATE;
  return qf_auth_random (challenge + 1, QF_AUTH_NONCE_SIZE, error);
}

gboolean
qf_auth_bw_answer_ok (GBytes       *token,
                      const guint8 *challenge,
                      const char   *cookie,
                      const guint8 *answer)
{
  QfAuthServer auth = { .token = token };
  QfAuthAnswer a = {
    .channel = QF_AUTH_CHANNEL_BANDWIDTH,
    .issued = challenge + 1,
    .mac = answer,
    .cookie = cookie,
  };

  g_return_val_if_fail (token != NULL && challenge != NULL && cookie != NULL, FALSE);

  return qf_auth_server_check (&auth, &a);
}

gboolean
qf_auth_bw_client_answer (int          fd,
                          GBytes      *token,
                          const char  *cookie,
                          gint64       deadline_ns,
                          const gint  *cancel,
                          GError     **error)
{
  guint8 nonce[QF_AUTH_NONCE_SIZE], mac[QF_AUTH_MAC_SIZE];

  g_return_val_if_fail (token != NULL && cookie != NULL, FALSE);

  if (!io_exact (fd, FALSE, nonce, sizeof nonce, deadline_ns, cancel, error))
    return FALSE;
  channel_mac (token, QF_AUTH_CHANNEL_BANDWIDTH, nonce, cookie, mac);
  return io_exact (fd, TRUE, mac, sizeof mac, deadline_ns, cancel, error);
}
