/* qf-announcer.c — the helper machine's side of discovery: announces "_qualify._tcp" over
 * Multicast DNS and answers the queries that ask for it (src/engine). See qf-discovery.h.
 *
 * One thread, one poll loop over an IPv6 and an IPv4 socket on UDP 5353 (either may be missing
 * on a system without that family). Every QF_DISCOVERY_RESCAN_MS the interfaces are listed
 * again: a new one is joined and announced on three times a second apart (RFC 6762 §8.3), one
 * that went away is left. The records are built afresh for each answer from the addresses the
 * interface has now, so an address that arrives late (IPv6 duplicate address detection, a DHCP
 * lease) is answered as soon as it exists.
 *
 * What a stranger can make us send is bounded: only well-formed queries from the local link are
 * answered (a source on the link AND hop limit / TTL 255, RFC 6762 §11: a spoofed query from
 * beyond a router arrives with less), a record is multicast on an interface at most once a
 * second per address family (RFC 6762 §6), a query that would get no record gets no packet, and
 * every answer takes a token from its sender's bucket (a few recent senders, so one host on the
 * link cannot use up the others' share), its interface's bucket and the bucket of all
 * interfaces. A group join that failed (an interface whose IPv6 is not up yet) is tried again at
 * each rescan; when one newly succeeds, or a cable is plugged back in, the three announcements
 * start over.
 */
#include "config.h"

#include <arpa/inet.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "qf-admission.h"
#include "qf-clock.h"
#include "qf-discovery-private.h"
#include "qf-i18n.h"
#include "qf-mdns.h"
#include "qf-net.h"

#define TTL_S              120     /* every record; a helper killed without goodbye ages out */
#define LEGACY_TTL_S       10      /* RFC 6762 §6.7 */
#define ANNOUNCE_COUNT     3
#define SEND_CAP           1400
#define TXT_NAME_MAX       200     /* bytes of the machine's name in the TXT record */
#define N_SOURCES          8       /* senders with a bucket of their own, least recent replaced */

/* Record kinds, as bits: what a query asks for, what was multicast when. */
enum
{
  WANT_PTR = 1 << 0,       /* _qualify._tcp.local -> instance */
  WANT_ENUM = 1 << 1,      /* _services._dns-sd._udp.local -> _qualify._tcp.local */
  WANT_SRV = 1 << 2,
  WANT_TXT = 1 << 3,
  WANT_A = 1 << 4,
  WANT_AAAA = 1 << 5,
  N_KINDS = 6,
};

typedef struct
{
  gint64  refilled_ns;
  gdouble tokens;
} Bucket;

typedef struct
{
  QfMdnsLink link;
  gboolean   joined6, joined4;
  guint      announcements_left;
  gint64     next_announce_ns;
  gint64     multicast_ns[2][N_KINDS];   /* [0] IPv6, [1] IPv4: when each kind was last sent */
  Bucket     bucket;
} Iface;

typedef struct
{
  guint8  address[16];      /* IPv4 in the first 4 bytes */
  int     family;           /* 0: unused */
  Bucket  bucket;
} Source;

struct QfAnnouncer
{
  int               fd6, fd4;
  char             *iface;            /* only this one, or NULL */
  char             *instance;         /* full: "<label>._qualify._tcp.local" */
  char             *host;             /* SRV target: "<host>-qualify.local" */
  char             *txt[7];
  guint16           latency_port;
  GArray           *ifaces;           /* of Iface */
  gint64            next_scan_ns;
  Bucket            total;
  Source            sources[N_SOURCES];
  QfAnnouncerStats  stats;
  QfLogLimit        log_limit;
  QfResponderLogFunc log;
  gpointer          log_data;
};

/* ---- names and records --------------------------------------------------------------------- */

/* The instance label: at most 63 bytes of valid UTF-8. */
static char *
instance_label (const char *name)
{
  char *label = _qf_discovery_text_cut (name, QF_DNS_MAX_LABEL);

  if (label[0] == '\0')
    {
      g_free (label);
      return g_strdup ("Qualify helper");
    }
  return label;
}

/* A host label from the host name: letters, digits and '-' only. */
static char *
host_label (const char *hostname)
{
  GString *out = g_string_new (NULL);

  for (const char *p = hostname; *p != '\0' && *p != '.' && out->len < 40; p++)
    g_string_append_c (out, g_ascii_isalnum (*p) ? *p : '-');
  if (out->len == 0)
    g_string_append (out, "helper");
  g_string_append (out, "-qualify.local");
  return g_string_free (out, FALSE);
}

static void
make_names (QfAnnouncer             *self,
            const QfAnnouncerConfig *config)
{
  const char *hostname = g_get_host_name ();
  const char *name = config->name != NULL && config->name[0] != '\0' ? config->name : hostname;
  g_autofree char *label = instance_label (name);
  g_autofree char *escaped = qf_dns_label_escape (label);
  g_autofree char *txt_name = _qf_discovery_text_cut (name, TXT_NAME_MAX);

  self->instance = g_strconcat (escaped, ".", QF_MDNS_SERVICE_NAME, NULL);
  self->host = host_label (hostname);
  self->latency_port = config->latency_port;
  /* Nothing here is a secret: only whether one is required. */
  self->txt[0] = g_strdup_printf ("v=%s", PACKAGE_VERSION);
  self->txt[1] = g_strdup_printf ("lat=%u", config->latency_port);
  self->txt[2] = g_strdup_printf ("bw=%u", config->bandwidth_port);
  self->txt[3] = g_strdup_printf ("code=%d", config->token_required ? 1 : 0);
  self->txt[4] = g_strdup_printf ("name=%s", txt_name);
  self->txt[5] = g_strdup_printf ("proto=%d", QF_DISCOVERY_PROTO_VERSION);
  self->txt[6] = NULL;
}

static void
write_addresses (QfDnsWriter  *w,
                 QfDnsSection  section,
                 const Iface  *iface,
                 guint         want,
                 guint16       klass,
                 guint32       ttl,
                 const char   *host)
{
  if (want & WANT_A)
    for (guint i = 0; i < iface->link.n_v4; i++)
      qf_dns_writer_address (w, section, host, klass, ttl, (const guint8 *) &iface->link.v4[i], 4);
  if (want & WANT_AAAA)
    for (guint i = 0; i < iface->link.n_v6; i++)
      qf_dns_writer_address (w, section, host, klass, ttl, iface->link.v6[i].s6_addr, 16);
}

/* The answer to want on iface; additional records are what a browser needs next (RFC 6763 §12).
 * legacy: the querier's id and questions, short TTLs, no cache-flush bit. Returns the length. */
static gsize
build_answer (QfAnnouncer        *self,
              const Iface        *iface,
              guint               want,
              guint32             ttl,
              const QfDnsMessage *legacy_query,
              guint8             *buf)
{
  guint16 shared = QF_DNS_CLASS_IN;
  guint16 unique = legacy_query != NULL ? QF_DNS_CLASS_IN : QF_DNS_CLASS_IN | QF_DNS_CLASS_TOP_BIT;
  guint extra = 0;
  QfDnsWriter w;

  qf_dns_writer_init (&w, buf, SEND_CAP, legacy_query != NULL ? legacy_query->id : 0,
                      QF_DNS_FLAG_RESPONSE | QF_DNS_FLAG_AA);
  if (legacy_query != NULL)
    {
      ttl = MIN (ttl, LEGACY_TTL_S);
      for (guint i = 0; i < legacy_query->n_questions; i++)
        qf_dns_writer_question (&w, legacy_query->questions[i].name,
                                legacy_query->questions[i].type,
                                legacy_query->questions[i].klass & ~QF_DNS_CLASS_TOP_BIT);
    }
  if (want & WANT_ENUM)
    qf_dns_writer_ptr (&w, QF_DNS_SECTION_ANSWER, QF_MDNS_ENUM_NAME, shared, ttl,
                       QF_MDNS_SERVICE_NAME);
  if (want & WANT_PTR)
    qf_dns_writer_ptr (&w, QF_DNS_SECTION_ANSWER, QF_MDNS_SERVICE_NAME, shared, ttl,
                       self->instance);
  if (want & WANT_SRV)
    qf_dns_writer_srv (&w, QF_DNS_SECTION_ANSWER, self->instance, unique, ttl,
                       self->latency_port, self->host);
  if (want & WANT_TXT)
    qf_dns_writer_txt (&w, QF_DNS_SECTION_ANSWER, self->instance, unique, ttl,
                       (const char * const *) self->txt);
  write_addresses (&w, QF_DNS_SECTION_ANSWER, iface, want, unique, ttl, self->host);

  if (want & WANT_PTR)
    extra = (WANT_SRV | WANT_TXT | WANT_A | WANT_AAAA) & ~want;
  else if (want & WANT_SRV)
    extra = (WANT_A | WANT_AAAA) & ~want;
  if (extra & WANT_SRV)
    qf_dns_writer_srv (&w, QF_DNS_SECTION_ADDITIONAL, self->instance, unique, ttl,
                       self->latency_port, self->host);
  if (extra & WANT_TXT)
    qf_dns_writer_txt (&w, QF_DNS_SECTION_ADDITIONAL, self->instance, unique, ttl,
                       (const char * const *) self->txt);
  write_addresses (&w, QF_DNS_SECTION_ADDITIONAL, iface, extra, unique, ttl, self->host);
  return qf_dns_writer_finish (&w);
}

/* ---- log ------------------------------------------------------------------------------------ */

static void
announcer_log (QfAnnouncer *self,
               gboolean     limited,
               const char  *format,
               ...) G_GNUC_PRINTF (3, 4);

static void
announcer_log (QfAnnouncer *self,
               gboolean     limited,
               const char  *format,
               ...)
{
  va_list args;

  va_start (args, format);
  qf_log_limit_vprintf (&self->log_limit, limited, self->log, self->log_data, format, args);
  va_end (args);
}

static void
log_summary (QfAnnouncer *self,
             gboolean     force)
{
  qf_log_limit_flush (&self->log_limit, force, self->log, self->log_data);
}

/* ---- interfaces ----------------------------------------------------------------------------- */

static Iface *
find_iface (QfAnnouncer *self,
            int          ifindex)
{
  for (guint i = 0; i < self->ifaces->len; i++)
    if (g_array_index (self->ifaces, Iface, i).link.ifindex == ifindex)
      return &g_array_index (self->ifaces, Iface, i);
  return NULL;
}

/* Joins the groups not joined yet on iface; when one newly is, or the cable was plugged back
 * in (was_running), the announcements start over: whoever listens there has not heard them. */
static void
join_iface (QfAnnouncer *self,
            Iface       *iface,
            gboolean     was_running)
{
  gboolean had = iface->joined6 || iface->joined4, more = FALSE;

  if (!iface->joined6 && self->fd6 >= 0
      && _qf_mdns_socket_join (self->fd6, AF_INET6, iface->link.ifindex, TRUE))
    iface->joined6 = more = TRUE;
  if (!iface->joined4 && self->fd4 >= 0
      && _qf_mdns_socket_join (self->fd4, AF_INET, iface->link.ifindex, TRUE))
    iface->joined4 = more = TRUE;
  if (!more && (was_running || !iface->link.running))
    return;
  iface->announcements_left = ANNOUNCE_COUNT;
  iface->next_announce_ns = qf_clock_now_ns ();
  memset (iface->multicast_ns, 0, sizeof iface->multicast_ns);
  if (!had && more)
    announcer_log (self, FALSE, _("discovery: announcing “%s” on %s (mDNS, %s)"),
                   self->instance, iface->link.name, QF_DISCOVERY_SERVICE);
}

/* Lists the interfaces again: joins new ones (and groups a join failed on before), leaves
 * those that went away, refreshes addresses. */
static void
rescan (QfAnnouncer *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) links = _qf_mdns_links_scan (self->iface, &error);
  GArray *ifaces;

  if (links == NULL)
    {
      announcer_log (self, TRUE, "discovery: %s", error->message);
      return;
    }
  ifaces = g_array_new (FALSE, TRUE, sizeof (Iface));
  for (guint i = 0; i < links->len; i++)
    {
      const QfMdnsLink *link = &g_array_index (links, QfMdnsLink, i);
      Iface *old = find_iface (self, link->ifindex);
      Iface fresh = { 0 };

      if (old != NULL)
        {
          fresh = *old;
          old->link.ifindex = 0;   /* kept: not to be left below */
        }
      fresh.link = *link;
      g_array_append_val (ifaces, fresh);
      join_iface (self, &g_array_index (ifaces, Iface, ifaces->len - 1),
                  old != NULL && old->link.running);
    }
  for (guint i = 0; i < self->ifaces->len; i++)
    {
      Iface *gone = &g_array_index (self->ifaces, Iface, i);

      if (gone->link.ifindex != 0 && gone->joined6)
        _qf_mdns_socket_join (self->fd6, AF_INET6, gone->link.ifindex, FALSE);
      if (gone->link.ifindex != 0 && gone->joined4)
        _qf_mdns_socket_join (self->fd4, AF_INET, gone->link.ifindex, FALSE);
    }
  g_array_unref (self->ifaces);
  self->ifaces = ifaces;
}

/* ---- rate limit ----------------------------------------------------------------------------- */

static gboolean
bucket_take (Bucket  *bucket,
             gdouble  per_second,
             gdouble  burst,
             gint64   now_ns)
{
  if (bucket->refilled_ns == 0)
    bucket->tokens = burst;
  else
    bucket->tokens = MIN (burst, bucket->tokens
                                 + per_second * (gdouble) (now_ns - bucket->refilled_ns) / 1e9);
  bucket->refilled_ns = now_ns;
  if (bucket->tokens < 1.0)
    return FALSE;
  bucket->tokens -= 1.0;
  return TRUE;
}

/* The bucket of from's address: its own, or the least recently used one taken over (a new
 * sender starts with a full bucket; a flood of spoofed senders still meets the interface's). */
static Bucket *
source_bucket (QfAnnouncer           *self,
               const struct sockaddr *from)
{
  guint8 address[16] = { 0 };
  Source *oldest = &self->sources[0];

  if (from->sa_family == AF_INET6)
    memcpy (address, &((const struct sockaddr_in6 *) from)->sin6_addr, 16);
  else
    memcpy (address, &((const struct sockaddr_in *) from)->sin_addr, 4);
  for (guint i = 0; i < N_SOURCES; i++)
    {
      Source *source = &self->sources[i];

      if (source->family == from->sa_family && memcmp (source->address, address, 16) == 0)
        return &source->bucket;
      if (source->bucket.refilled_ns < oldest->bucket.refilled_ns)
        oldest = source;
    }
  memset (oldest, 0, sizeof *oldest);
  oldest->family = from->sa_family;
  memcpy (oldest->address, address, 16);
  return &oldest->bucket;
}

/* Takes a token from the sender's bucket, the interface's and the total one, or from none. */
static gboolean
rate_allows (QfAnnouncer           *self,
             Iface                 *iface,
             const struct sockaddr *from,
             gint64                 now_ns)
{
  Bucket *source = source_bucket (self, from);
  Bucket saved_source = *source, saved_iface = iface->bucket;

  if (bucket_take (source, QF_DISCOVERY_SOURCE_RATE, QF_DISCOVERY_SOURCE_BURST, now_ns)
      && bucket_take (&iface->bucket, QF_DISCOVERY_IFACE_RATE, QF_DISCOVERY_IFACE_BURST, now_ns)
      && bucket_take (&self->total, QF_DISCOVERY_TOTAL_RATE, QF_DISCOVERY_TOTAL_BURST, now_ns))
    return TRUE;
  /* Refused: no bucket pays for it. */
  *source = saved_source;
  iface->bucket = saved_iface;
  return FALSE;
}

static guint
family_slot (int family)
{
  return family == AF_INET6 ? 0 : 1;
}

/* The kinds in want not multicast on iface in family less than a second ago. */
static guint
multicast_due (const Iface *iface,
               int          family,
               guint        want,
               gint64       now_ns)
{
  const gint64 *sent_ns = iface->multicast_ns[family_slot (family)];
  guint due = 0;

  for (guint k = 0; k < N_KINDS; k++)
    if ((want & (1u << k)) && (sent_ns[k] == 0 || now_ns - sent_ns[k] >= QF_NSEC_PER_SEC))
      due |= 1u << k;
  return due;
}

/* ---- sending -------------------------------------------------------------------------------- */

/* Multicasts want on iface in family; only what was sent is marked as sent (a refused IPv4
 * send on a link without IPv4 leaves IPv4 free to answer once it has an address). */
static gboolean
multicast_on (QfAnnouncer *self,
              Iface       *iface,
              int          family,
              guint        want,
              guint32      ttl,
              gint64       now_ns)
{
  guint8 buf[SEND_CAP];
  gsize len = build_answer (self, iface, want, ttl, NULL, buf);
  int fd = family == AF_INET6 ? self->fd6 : self->fd4;

  if (len == 0 || fd < 0 || !(family == AF_INET6 ? iface->joined6 : iface->joined4))
    return FALSE;
  /* IPv4 on a link with no IPv4 address may be refused: IPv6 carries discovery there. */
  if (!_qf_mdns_socket_multicast (fd, family, iface->link.ifindex, buf, len))
    return FALSE;
  self->stats.answers++;
  for (guint k = 0; k < N_KINDS; k++)
    if (want & (1u << k))
      iface->multicast_ns[family_slot (family)][k] = now_ns;
  return TRUE;
}

static void
announce_due (QfAnnouncer *self,
              gint64       now_ns)
{
  const guint all = WANT_PTR | WANT_ENUM | WANT_SRV | WANT_TXT | WANT_A | WANT_AAAA;

  for (guint i = 0; i < self->ifaces->len; i++)
    {
      Iface *iface = &g_array_index (self->ifaces, Iface, i);

      if (iface->announcements_left == 0 || now_ns < iface->next_announce_ns)
        continue;
      multicast_on (self, iface, AF_INET6, all, TTL_S, now_ns);
      multicast_on (self, iface, AF_INET, all, TTL_S, now_ns);
      iface->announcements_left--;
      iface->next_announce_ns = now_ns + QF_NSEC_PER_SEC;
    }
}

static void
say_goodbye (QfAnnouncer *self)
{
  gint64 now_ns = qf_clock_now_ns ();

  for (guint i = 0; i < self->ifaces->len; i++)
    {
      Iface *iface = &g_array_index (self->ifaces, Iface, i);

      multicast_on (self, iface, AF_INET6, WANT_PTR, 0, now_ns);
      multicast_on (self, iface, AF_INET, WANT_PTR, 0, now_ns);
    }
}

/* ---- answering ------------------------------------------------------------------------------ */

/* What q asks of us (WANT_* bits), 0 when it is not about us. */
static guint
question_wants (QfAnnouncer         *self,
                const QfDnsQuestion *q)
{
  guint16 type = q->type;
  gboolean any = type == QF_DNS_TYPE_ANY;
  guint16 klass = q->klass & ~QF_DNS_CLASS_TOP_BIT;

  if (klass != QF_DNS_CLASS_IN && klass != 255)
    return 0;
  if (qf_dns_name_equal (q->name, QF_MDNS_SERVICE_NAME) && (any || type == QF_DNS_TYPE_PTR))
    return WANT_PTR;
  if (qf_dns_name_equal (q->name, QF_MDNS_ENUM_NAME) && (any || type == QF_DNS_TYPE_PTR))
    return WANT_ENUM;
  if (qf_dns_name_equal (q->name, self->instance))
    return (any || type == QF_DNS_TYPE_SRV ? WANT_SRV : 0) | (any || type == QF_DNS_TYPE_TXT ? WANT_TXT : 0);
  if (qf_dns_name_equal (q->name, self->host))
    return (any || type == QF_DNS_TYPE_A ? WANT_A : 0) | (any || type == QF_DNS_TYPE_AAAA ? WANT_AAAA : 0);
  return 0;
}

/* Known-answer suppression (RFC 6762 §7.1): the querier already holds our PTR with at least half
 * its TTL left. */
static guint
drop_known (QfAnnouncer        *self,
            const QfDnsMessage *query,
            guint               want)
{
  for (guint i = 0; i < query->n_answers; i++)
    {
      const QfDnsRecord *r = &query->records[i];

      if (r->type == QF_DNS_TYPE_PTR && r->ttl >= TTL_S / 2
          && qf_dns_name_equal (r->name, QF_MDNS_SERVICE_NAME)
          && qf_dns_name_equal (r->target, self->instance))
        want &= ~WANT_PTR;
    }
  return want;
}

/* want without the address kinds iface has no address of: a question for A on a link without
 * IPv4 has no answer, and an empty packet would still cost a token. */
static guint
answerable (const Iface *iface,
            guint        want)
{
  if (iface->link.n_v4 == 0)
    want &= ~WANT_A;
  if (iface->link.n_v6 == 0)
    want &= ~WANT_AAAA;
  return want;
}

/* One query from from on iface: answered, limited, or not for us. */
static void
answer_query (QfAnnouncer           *self,
              int                    fd,
              Iface                 *iface,
              const QfDnsMessage    *query,
              const struct sockaddr *from)
{
  guint16 port = ntohs (from->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *) from)->sin6_port
                                                    : ((const struct sockaddr_in *) from)->sin_port);
  gboolean legacy = port != QF_MDNS_PORT, unicast = legacy;
  gint64 now_ns = qf_clock_now_ns ();
  guint want = 0;
  guint8 buf[SEND_CAP];
  gsize len;

  for (guint i = 0; i < query->n_questions; i++)
    {
      guint w = question_wants (self, &query->questions[i]);
      want |= w;
      if (w != 0 && (query->questions[i].klass & QF_DNS_CLASS_TOP_BIT))
        unicast = TRUE;
    }
  want = answerable (iface, drop_known (self, query, want));
  if (want == 0)
    return;
  self->stats.queries++;
  if (!_qf_mdns_link_has_source (&iface->link, from))
    {
      self->stats.off_link++;
      return;
    }
  if (!unicast && (want = multicast_due (iface, from->sa_family, want, now_ns)) == 0)
    return;
  if (!rate_allows (self, iface, from, now_ns))
    {
      self->stats.limited++;
      return;
    }
  if (!unicast)
    {
      multicast_on (self, iface, from->sa_family, want, TTL_S, now_ns);
      return;
    }
  len = build_answer (self, iface, want, TTL_S, legacy ? query : NULL, buf);
  if (len > 0 && _qf_mdns_socket_unicast (fd, from, buf, len))
    self->stats.answers++;
}

/* FALSE when there was nothing to read. */
static gboolean
receive_one (QfAnnouncer  *self,
             int           fd,
             QfDnsMessage *msg)
{
  guint8 packet[QF_MDNS_MAX_PACKET];
  struct sockaddr_storage from;
  int ifindex, hop_limit;
  gssize n = _qf_mdns_socket_recv (fd, packet, sizeof packet, &from, &ifindex, &hop_limit);
  Iface *iface;

  if (n < 0)
    return FALSE;
  iface = find_iface (self, ifindex);
  if (iface == NULL)
    return TRUE;   /* an interface we do not serve (or another's --iface) */
  if (hop_limit != QF_MDNS_LINK_HOP_LIMIT)
    {
      /* Crossed a router, or was sent to reflect off us (RFC 6762 §11): not from the link. */
      self->stats.off_link++;
      return TRUE;
    }
  if (!qf_dns_parse (packet, (gsize) n, msg))
    {
      g_autofree char *who = qf_net_address_to_string ((struct sockaddr *) &from, TRUE);

      self->stats.malformed++;
      announcer_log (self, TRUE, _("discovery: ignored a malformed mDNS packet from %s on %s"),
                     who, iface->link.name);
      return TRUE;
    }
  /* Answers (ours looped back, others') and other opcodes are not for us. */
  if (!(msg->flags & QF_DNS_FLAG_RESPONSE) && ((msg->flags >> 11) & 0xF) == 0)
    answer_query (self, fd, iface, msg, (struct sockaddr *) &from);
  return TRUE;
}

/* ---- the announcer -------------------------------------------------------------------------- */

QfAnnouncer *
qf_announcer_new (const QfAnnouncerConfig  *config,
                  GError                  **error)
{
  g_autoptr(QfAnnouncer) self = NULL;
  g_autoptr(GError) error6 = NULL;

  g_return_val_if_fail (config != NULL, NULL);

  if (config->iface != NULL && !qf_net_iface_exists (config->iface, error))
    return NULL;
  self = g_new0 (QfAnnouncer, 1);
  self->fd4 = -1;
  self->iface = g_strdup (config->iface);
  self->log = config->log;
  self->log_data = config->log_data;
  self->ifaces = g_array_new (FALSE, TRUE, sizeof (Iface));
  make_names (self, config);
  self->fd6 = _qf_mdns_socket_open (AF_INET6, QF_MDNS_PORT, &error6);
  self->fd4 = _qf_mdns_socket_open (AF_INET, QF_MDNS_PORT, self->fd6 < 0 ? error : NULL);
  if (self->fd6 < 0 && self->fd4 < 0)
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
qf_announcer_run (QfAnnouncer  *self,
                  const gint   *stop,
                  GError      **error)
{
  g_autofree QfDnsMessage *msg = g_new0 (QfDnsMessage, 1);

  g_return_val_if_fail (self != NULL && stop != NULL, FALSE);

  while (!g_atomic_int_get (stop))
    {
      struct pollfd fds[2] = { { self->fd6, POLLIN, 0 }, { self->fd4, POLLIN, 0 } };
      gint64 now_ns = qf_clock_now_ns ();

      if (now_ns >= self->next_scan_ns)
        {
          rescan (self);
          self->next_scan_ns = now_ns + QF_DISCOVERY_RESCAN_MS * QF_NSEC_PER_MSEC;
        }
      announce_due (self, now_ns);
      log_summary (self, FALSE);
      if (poll (fds, 2, 100) <= 0)
        continue;
      /* A bounded number of packets per wake-up, so a flood cannot keep us from the stop flag. */
      for (guint i = 0; i < 64 && (fds[0].revents & POLLIN); i++)
        if (!receive_one (self, self->fd6, msg))
          break;
      for (guint i = 0; i < 64 && (fds[1].revents & POLLIN); i++)
        if (!receive_one (self, self->fd4, msg))
          break;
    }
  say_goodbye (self);
  log_summary (self, TRUE);
  return TRUE;
}

void
qf_announcer_get_stats (QfAnnouncer      *self,
                        QfAnnouncerStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  *stats = self->stats;
}

void
qf_announcer_free (QfAnnouncer *self)
{
  if (self == NULL)
    return;
  if (self->fd6 >= 0)
    close (self->fd6);
  if (self->fd4 >= 0)
    close (self->fd4);
  g_clear_pointer (&self->ifaces, g_array_unref);
  g_free (self->iface);
  g_free (self->instance);
  g_free (self->host);
  for (guint i = 0; i < G_N_ELEMENTS (self->txt); i++)
    g_free (self->txt[i]);
  g_free (self);
}
