#!/usr/bin/env python3
"""make-seeds.py — writes the hand-made seed inputs of the engine fuzz targets into corpus/
(the profile, session and report seeds are copies of data/ files and generated reports; see
tools/fuzz). Run again only to regenerate; libFuzzer adds its own finds next to these."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


params_tcp = {"tcp": True, "omit": 0, "time": 2, "num": 0, "blockcount": 0, "parallel": 2,
              "len": 131072, "pacing_timer": 1000, "client_version": "3.12"}
params_udp = {"udp": True, "omit": 0, "time": 1, "parallel": 1, "len": 1460,
              "bandwidth": 1048576, "udp_counters_64bit": 1, "reverse": True}
results = {"cpu_util_total": 1.5, "cpu_util_user": 0.5, "cpu_util_system": 1.0,
           "sender_has_retransmits": 1,
           "streams": [{"id": 1, "bytes": 123456789, "retransmits": 3, "jitter": 0.0001,
                        "errors": 2, "omitted_errors": 0, "packets": 1000, "start_time": 0,
                        "end_time": 2.0001},
                       {"id": 3, "bytes": 18446744073709551615, "retransmits": -1,
                        "jitter": 0, "errors": 0, "packets": 0, "start_time": 0, "end_time": 2}]}

for name, doc in (('params-tcp', params_tcp), ('params-udp', params_udp), ('results', results)):
    put('minijson', name, json.dumps(doc))
put('minijson', 'nesting', '[[[[[[[[[[[[[[[{"a":[1,2,{"b":null}]}]]]]]]]]]]]]]]]')
put('minijson', 'strings', r'{"\u00e9\ud83d\ude00":"tab\there \"q\" \\ \/","e":"","n":-0.0e-0}')
put('minijson', 'numbers', '[0,-1,1e308,-1e-308,9223372036854775807,9223372036854775808,1.5E+3]')

def framed(doc):
    text = json.dumps(doc).encode()
    return struct.pack('>I', len(text)) + text

put('iperf3-results', 'results', framed(results))
put('iperf3-results', 'results-empty-streams', framed({"streams": []}))
put('iperf3-results', 'results-bad-types', framed({"streams": [{"id": "1", "bytes": [1]}, 7, None]}))

cookie = b'abcdefghijklmnopqrstuvwxyz2345672345\0'
assert len(cookie) == 37
put('iperf3-server', 'tcp', cookie + framed(params_tcp))
put('iperf3-server', 'udp-reverse', cookie + framed(params_udp))
put('iperf3-server', 'bidir-then-test-end', cookie + framed(dict(params_tcp, bidirectional=True)) + b'\x04')
put('iperf3-server', 'too-long', cookie + struct.pack('>I', 0xffffffff) + b'{}')
put('iperf3-server', 'cookie-only', cookie)
marked = b'qfa1' + cookie[4:]
put('iperf3-server', 'token-marked-cookie', marked + b'm' * 32 + framed(params_tcp))
put('iperf3-server', 'token-marked-short', marked + b'm' * 5)


def sockperf(seq, flags, payload=b''):
    return struct.pack('>QHI', seq, flags, 14 + len(payload)) + payload


def cycle(seq, kind=1):
    return b'QFCY' + bytes([1, kind, 0, 0]) + struct.pack('>QQQ', seq, 123456789, 0)


def datagrams(*ds):
    return b''.join(struct.pack('>H', len(d)) + d for d in ds)

ping = sockperf(1, 3, b'x' * 50) + sockperf(2, 3 | 0x100, b'y' * 2) + sockperf(3, 1 | 4)
# byte 0: bit 0 emulated responder, bit 1 UDP; TCP byte 1: chunk size
put('responder', 'tcp-pingpong', b'\x00\x00' + ping)
put('responder', 'tcp-pingpong-bytewise', b'\x00\x01' + ping)
put('responder', 'tcp-emulated', b'\x01\x07' + ping * 3)
put('responder', 'tcp-oversized', b'\x00\x00' + struct.pack('>QHI', 1, 3, 0x7fffffff))
put('responder', 'tcp-undersized', b'\x00\x00' + struct.pack('>QHI', 1, 3, 3))
put('responder', 'udp-pingpong', b'\x02' + datagrams(sockperf(1, 3, b'z' * 20), sockperf(2, 3)))
put('responder', 'udp-cycle', b'\x02' + datagrams(cycle(1), cycle(2), cycle(3, 2)))
put('responder', 'udp-emulated', b'\x03' + datagrams(cycle(1), sockperf(5, 3 | 0x100, b'q')))
# access token (qf-auth.h): bit 2 of byte 0 picks the responder that requires one
def auth(kind, body=b'', size=None):
    size = size if size is not None else 14 + len(body)
    return struct.pack('>QHI', 0x51464155 << 32 | kind << 24, 0x200, size) + body

hello, response = auth(1, b'\0' * 82), auth(3, b'n' * 32 + b'm' * 32)
put('responder', 'tcp-token-hello-response', b'\x04\x00' + hello + response + ping)
put('responder', 'tcp-token-none', b'\x04\x05' + ping)
put('responder', 'tcp-token-hello-twice', b'\x04\x00' + hello + hello)
put('responder', 'tcp-hello-no-token-needed', b'\x00\x00' + hello + ping)
put('responder', 'udp-token', b'\x06' + datagrams(hello, response, sockperf(1, 3), cycle(1)))
put('responder', 'udp-token-bad-sizes', b'\x06' + datagrams(auth(1, b'', 96), auth(3, b'x' * 10)))
put('responder', 'udp-length-mismatch', b'\x02' + datagrams(struct.pack('>QHI', 1, 3, 99), b'short'))

# The HTML signature element (fuzz-html-signature): the tail of the signed report in the
# verify-html corpus as the writer leaves it, and the element moved, repeated, re-wrapped,
# followed by more, or cut short.
with open(os.path.join(HERE, 'corpus', 'verify-html', 'signed-stripped.html'), 'rb') as f:
    report = f.read()
sig_open = b'<script type="application/pkcs7-signature" id="qf-signature">'
at = report.index(sig_open)
element = report[at:report.index(b'</script>', at) + len(b'</script>')]
body = report[max(0, report.rindex(b'<script', 0, at) - 200):at]
after = report[at + len(element):]
b64 = element[len(sig_open):-len(b'</script>')]
put('html-signature', 'as-written', body + element + after)
put('html-signature', 'in-title', b'<title>' + element + b'</title>' + body + after)
put('html-signature', 'twice', body + element + element + after)
put('html-signature', 'wrapped', body + sig_open + b64[:64] + b'\n' + b64[64:] + b'</script>' + after)
put('html-signature', 'appended', body + element + after + b'<p>more</p>')
put('html-signature', 'cut', body + element[:len(element) // 2])
put('html-signature', 'empty', body + sig_open + b'</script>' + after)
# Sessions of the wrong shape, as `run --resume` and `--replay` met them (each once raised a GLib
# critical, re-ran tests or was read wrong), beside a small whole one they are variants of.
session = {"format": "qualify-session", "schema_version": 1, "id": "f0", "state": "running",
           "operator": "Li Wei", "customer": "", "site": "", "only": ["ping"],
           "profile": {"id": "p", "version": 1, "name": "P", "description": "", "network_kind": "any",
                       "tests": {"ping": {"params": {"count": 3}, "criteria": []}}},
           "notes": [{"id": "quick", "text": "a note"}],
           "steps": [{"key": "ping", "test": "ping", "title": "Ping", "params": {"count": 3},
                      "status": "done", "duration_s": 0.5, "result": {"test": "ping"},
                      "error": None, "partial": False, "progress": [[0.1, 0.5], [0.4, 1]],
                      "live": [[0.1, {"avg_ms": 1.5}]],
                      "samples": {"t_ns": [1000, 2000], "value_ns": [5, 6], "channel": [0, 0],
                                  "recorded": 2, "dropped": 0}}]}
put('session', 'small-whole.json', json.dumps(session, indent=1))
variants = {
    'steps-not-objects': ('steps', [5, "x"]), 'note-a-list': ('notes', [["a"]]),
    'pc-a-list': ('pc', [1]), 'schema-huge': ('schema_version', '@99999999999999999999'),
    'operator-nul': ('operator', '@"a\\u0000b"'), 'operator-surrogate': ('operator', '@"a\\ud800"'),
    'site-control': ('site', 'a\u0007b'), 'only-numbers': ('only', [1, 2]),
    'deep': ('pc', '@' + '[' * 1000 + ']' * 1000),
}
step_variants = {
    'result-text': ('result', 'x'), 'progress-flat': ('progress', [1, 2]),
    'live-no-object': ('live', [[1, 2]]), 'error-code-huge': ('error', {"code": 1e30}),
    'samples-short': ('samples', {"t_ns": [1, 2], "value_ns": [1], "channel": [0, 0]}),
    'partial-text': ('partial', 'yes'),
}
for name, (key, value) in list(variants.items()) + [('step-' + k, v) for k, v in step_variants.items()]:
    doc = json.loads(json.dumps(session))
    target = doc['steps'][0] if name.startswith('step-') else doc
    raw = isinstance(value, str) and value.startswith('@')
    target[key] = '@@RAW@@' if raw else value
    text = json.dumps(doc, indent=1)
    if raw:
        text = text.replace('"@@RAW@@"', value[1:])
    put('session', 'wrong-' + name + '.json', text)


# mdns: a query as qualify-cli discover sends it, an answer as serve sends it (PTR, SRV, TXT,
# AAAA, names compressed), a compression loop, a pointer forward, a truncated record.
def dns_name(text):
    return b''.join(bytes([len(l)]) + l.encode() for l in text.split('.')) + b'\0'


def dns_header(qd, an, ns=0, ar=0, flags=0):
    return struct.pack('>HHHHHH', 0, flags, qd, an, ns, ar)


query = dns_header(1, 0) + dns_name('_qualify._tcp.local') + struct.pack('>HH', 12, 1)
put('mdns', 'query', query)
ptr_rdata = bytes([6]) + b'helper' + struct.pack('>H', 0xC00C)
answer = dns_header(0, 1, 0, 3, 0x8400) + dns_name('_qualify._tcp.local')
answer += struct.pack('>HHIH', 12, 1, 120, len(ptr_rdata)) + ptr_rdata
instance_at = 12 + len(dns_name('_qualify._tcp.local')) + 10
target = bytes([14]) + b'helper-qualify' + struct.pack('>H', 0xC000 | (12 + 1 + 8 + 1 + 4))
srv = struct.pack('>HHH', 0, 0, 11111) + target
answer += struct.pack('>HHHIH', 0xC000 | instance_at, 33, 0x8001, 120, len(srv)) + srv
txt = b''.join(bytes([len(s)]) + s for s in (b'v=0.1.0', b'lat=11111', b'bw=5201', b'code=1',
                                             b'name=Lab PC', b'proto=1'))
answer += struct.pack('>HHHIH', 0xC000 | instance_at, 16, 0x8001, 120, len(txt)) + txt
host_at = instance_at + 2 + 10 + 6
answer += struct.pack('>HHHIH', 0xC000 | host_at, 28, 0x8001, 120, 16) + bytes([0xfe, 0x80] + [0] * 13 + [1])
put('mdns', 'answer', answer)
put('mdns', 'pointer-loop', dns_header(1, 0) + struct.pack('>H', 0xC00C) + struct.pack('>HH', 12, 1))
put('mdns', 'pointer-forward', dns_header(1, 0) + struct.pack('>H', 0xC010) + b'\x03abc\x00' + struct.pack('>HH', 12, 1))
put('mdns', 'truncated', answer[:-7])
put('mdns', 'too-many-records', dns_header(0, 0xffff))


# trace-parse: trace_pipe_raw pages of a Linux 6.18 kernel (tests/engine/trace-fixture.h's IDs
# and offsets), led by the mode byte 0; a format text led by 1 and the event's index.
def trace_record(kind, pid, body):
    ids = {'switch': 372, 'waking': 375, 'wakeup': 374, 'irq_entry': 225, 'irq_exit': 224,
           'softirq_entry': 223, 'softirq_exit': 222, 'timer_entry': 459, 'timer_exit': 458,
           'print': 5}
    return struct.pack('<HBBi', ids[kind], 0, 0, pid) + body


def trace_page(records):
    """records: [(ts_ns, data)] in time order → one 4096-byte page."""
    data = b''
    last = records[0][0]
    for ts, rec in records:
        delta = ts - last
        if delta >= 1 << 27:
            data += struct.pack('<II', 30 | ((delta & ((1 << 27) - 1)) << 5), delta >> 27)
            delta = 0
        padded = rec + b'\0' * (-len(rec) % 4)
        if len(padded) <= 112:
            data += struct.pack('<I', len(padded) // 4 | delta << 5) + padded
        else:
            data += struct.pack('<II', delta << 5, len(padded) + 4) + padded
        last = ts
    page = struct.pack('<QQ', records[0][0], len(data)) + data
    return page + b'\0' * (4096 - len(page))


def comm(name):
    return name.encode().ljust(16, b'\0')


T0 = 5_000_000_000
TIMER = 0xffff888000001000
culprit = [
    (T0 - 1_500_000, trace_record('wakeup', 0, comm('spin') + struct.pack('<iii', 4242, 0, 1))),
    (T0 + 4000, trace_record('timer_entry', 4242, struct.pack('<QqQ', TIMER, T0 + 4000, 0xffffffff810c0de0))),
    (T0 + 5000, trace_record('waking', 4242, comm('qualify-rt') + struct.pack('<iii', 4000, 0, 1))),
    (T0 + 7000, trace_record('timer_exit', 4242, struct.pack('<Q', TIMER))),
    (T0 + 2_900_000, trace_record('switch', 4242, comm('spin') + struct.pack('<iiq', 4242, 0, 1)
                                  + comm('qualify-rt') + struct.pack('<ii', 4000, 0))),
    (T0 + 2_910_000, trace_record('print', 4000, struct.pack('<Q', 0xffffffff81000000)
                                  + b'qualify-spike start=%d latency=%d\n\0' % (T0, 2_905_000))),
]
irq = [
    (T0 - 10_000, trace_record('irq_entry', 0, struct.pack('<iI', 31, 16 | (8 << 16)) + b'nvme0q3\0')),
    (T0 + 200_000, trace_record('irq_exit', 0, struct.pack('<ii', 31, 1))),
    (T0 + 201_000, trace_record('softirq_entry', 0, struct.pack('<I', 3))),
    (T0 + 202_000, trace_record('waking', 0, comm('qualify-rt') + struct.pack('<iii', 4000, 0, 1))),
    (T0 + 203_000, trace_record('softirq_exit', 0, struct.pack('<I', 3))),
    (T0 + 900_000_000, trace_record('print', 4000, struct.pack('<Q', 0) + b'x' * 150 + b'\0')),
    (T0 + 900_000_100, trace_record('print', 4000, struct.pack('<Q', 0)
                                    + b'qualify-spike start=%d latency=%d\n\0' % (T0, 900_000_000))),
]
put('trace-parse', 'fifo-culprit', b'\0' + b'\0' * 4096 + trace_page(culprit))
put('trace-parse', 'irq-softirq-extend', b'\0' + b'\0' * 4096 + trace_page(irq))
put('trace-parse', 'lost-and-cut', b'\0' + trace_page(culprit)[:8] + struct.pack('<Q', (3 << 30) | 300)
    + trace_page(culprit)[16:2000])
put('trace-parse', 'format-switch', b'\1\0' + open('/sys/kernel/tracing/events/sched/sched_switch/format', 'rb').read()
    if os.path.exists('/sys/kernel/tracing/events/sched/sched_switch/format') else b'\1\0')
put('trace-parse', 'format-data-loc', b'\1\3name: irq_handler_entry\nID: 225\nformat:\n'
    b'\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n'
    b'\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n'
    b'\tfield:__rel_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n'
    b'\tfield:int irq;\toffset:65535;\tsize:8;\tsigned:1;\n')
