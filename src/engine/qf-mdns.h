/* qf-mdns.h — a bounded DNS message codec for Multicast DNS and DNS-SD (src/engine).
 *
 * Only what discovery (qf-discovery.c) needs: questions, and PTR, SRV, TXT, A and AAAA records;
 * other record types are skipped over (their length checked) and kept with their type only.
 * Names are dotted text; a '.' or '\\' inside a label is written "\\." / "\\\\" and a byte below
 * 0x20 or 0x7f as "\\DDD", so a DNS-SD instance name such as "Lab PC. 2" survives a round trip.
 *
 * Parsing reads nothing outside the packet: every length is checked before it is used, a name
 * compression pointer must point backwards (and past the header), at most QF_DNS_MAX_POINTERS are followed per name,
 * a name is at most QF_DNS_MAX_NAME bytes, and a message with more than QF_DNS_MAX_RECORDS
 * records or QF_DNS_MAX_QUESTIONS questions is refused, as is one with bytes left over or
 * missing. Plain data; no allocation while parsing.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_MDNS_PORT            5353
#define QF_MDNS_GROUP_V4        "224.0.0.251"
#define QF_MDNS_GROUP_V6        "ff02::fb"
#define QF_MDNS_MAX_PACKET      9000    /* RFC 6762 §17 */
#define QF_DNS_MAX_NAME         255     /* wire length */
#define QF_DNS_MAX_TEXT         1024    /* dotted text of a name with every escape */
#define QF_DNS_MAX_LABEL        63
#define QF_DNS_MAX_POINTERS     16
#define QF_DNS_MAX_QUESTIONS    16
#define QF_DNS_MAX_RECORDS      48

#define QF_DNS_FLAG_RESPONSE    0x8000
#define QF_DNS_FLAG_AA          0x0400
#define QF_DNS_CLASS_IN         1
#define QF_DNS_CLASS_TOP_BIT    0x8000  /* question: unicast response wanted; record: flush */

typedef enum
{
  QF_DNS_TYPE_A = 1,
  QF_DNS_TYPE_PTR = 12,
  QF_DNS_TYPE_TXT = 16,
  QF_DNS_TYPE_AAAA = 28,
  QF_DNS_TYPE_SRV = 33,
  QF_DNS_TYPE_ANY = 255,
} QfDnsType;

typedef struct
{
  char    name[QF_DNS_MAX_TEXT];
  guint16 type;
  guint16 klass;          /* with QF_DNS_CLASS_TOP_BIT */
} QfDnsQuestion;

typedef struct
{
  char          name[QF_DNS_MAX_TEXT];
  guint16       type;
  guint16       klass;    /* with QF_DNS_CLASS_TOP_BIT */
  guint32       ttl;
  /* PTR: the name pointed to; SRV: the target host. */
  char          target[QF_DNS_MAX_TEXT];
  guint16       priority, weight, port;      /* SRV */
  guint8        address[16];                 /* A: 4 bytes, AAAA: 16 */
  const guint8 *txt;                         /* TXT: raw strings inside the parsed packet */
  guint16       txt_len;
} QfDnsRecord;

typedef struct
{
  guint16       id;
  guint16       flags;
  guint         n_questions;
  guint         n_records;      /* answers, authority and additional, in that order */
  guint         n_answers;      /* how many of records are in the answer section */
  QfDnsQuestion questions[QF_DNS_MAX_QUESTIONS];
  QfDnsRecord   records[QF_DNS_MAX_RECORDS];
} QfDnsMessage;

/* Parses packet into msg (large: allocate it, do not put it on a small stack). FALSE when the
 * packet is malformed in any way; msg's contents are then meaningless. TXT pointers point into
 * packet. */
gboolean qf_dns_parse          (const guint8 *packet,
                                gsize         len,
                                QfDnsMessage *msg);

/* Whether two dotted names are equal, ASCII letters compared without case (RFC 6762 §16). */
gboolean qf_dns_name_equal     (const char   *a,
                                const char   *b);

/* Looks key up in a TXT record's strings ("key=value"); returns a newly allocated value ("" for a
 * key without '='), or NULL when absent. Keys compare without case. */
char    *qf_dns_txt_get        (const guint8 *txt,
                                gsize         len,
                                const char   *key);

/* Escapes a label (an instance name) for use in a dotted name. */
char    *qf_dns_label_escape   (const char   *label);
/* The first label of a dotted name, unescaped; NULL when malformed. */
char    *qf_dns_first_label    (const char   *name);

/* Builds a message in a caller's buffer, compressing repeated names. Once anything does not
 * fit, the writer stays failed and qf_dns_writer_finish returns 0. */
typedef struct
{
  guint8 *buf;
  gsize   cap;
  gsize   len;
  gboolean overflow;
  guint   n_questions, n_answers, n_authority, n_additional;
  guint   n_offsets;
  guint16 offsets[32];   /* where each label written so far starts, for compression */
} QfDnsWriter;

void     qf_dns_writer_init       (QfDnsWriter  *w,
                                   guint8       *buf,
                                   gsize         cap,
                                   guint16       id,
                                   guint16       flags);
void     qf_dns_writer_question   (QfDnsWriter  *w,
                                   const char   *name,
                                   guint16       type,
                                   guint16       klass);

typedef enum
{
  QF_DNS_SECTION_ANSWER,
  QF_DNS_SECTION_AUTHORITY,
  QF_DNS_SECTION_ADDITIONAL,
} QfDnsSection;

/* Records go in section order: every answer before any additional one. */
void     qf_dns_writer_ptr        (QfDnsWriter  *w,
                                   QfDnsSection  section,
                                   const char   *name,
                                   guint16       klass,
                                   guint32       ttl,
                                   const char   *target);
void     qf_dns_writer_srv        (QfDnsWriter  *w,
                                   QfDnsSection  section,
                                   const char   *name,
                                   guint16       klass,
                                   guint32       ttl,
                                   guint16       port,
                                   const char   *target);
/* strings: NULL-terminated "key=value" list; each at most 255 bytes. */
void     qf_dns_writer_txt        (QfDnsWriter  *w,
                                   QfDnsSection  section,
                                   const char   *name,
                                   guint16       klass,
                                   guint32       ttl,
                                   const char * const *strings);
/* len 4 (A) or 16 (AAAA). */
void     qf_dns_writer_address    (QfDnsWriter  *w,
                                   QfDnsSection  section,
                                   const char   *name,
                                   guint16       klass,
                                   guint32       ttl,
                                   const guint8 *address,
                                   gsize         len);
/* Fills the header's counts; the message length, or 0 when something did not fit. */
gsize    qf_dns_writer_finish     (QfDnsWriter  *w);

G_END_DECLS
