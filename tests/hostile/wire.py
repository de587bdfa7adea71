"""wire.py - protobuf wire encoding of XSpace captures for the hostile suite (no protobuf library needed)."""
import struct


def varint(v):
    v &= (1 << 64) - 1  # negatives as two's complement, like int64 fields
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode('utf-8', 'surrogateescape')
    return varint((num << 3) | 2) + varint(len(data)) + data


def field_double(num, v):
    return varint((num << 3) | 1) + struct.pack('<d', v)


def stat(meta_id, value):
    """XStat: value is int (int64_value), float (double_value), str/bytes (str_value), or ('u', n) / ('ref', id) /
    ('bytes', data) (bytes_value)."""
    body = field_varint(1, meta_id)
    if isinstance(value, tuple) and value[0] == 'bytes':
        body += field_bytes(6, value[1])
    elif isinstance(value, tuple) and value[0] == 'u':
        body += field_varint(3, value[1])
    elif isinstance(value, tuple) and value[0] == 'ref':
        body += field_varint(7, value[1])
    elif isinstance(value, float):
        body += field_double(2, value)
    elif isinstance(value, int):
        body += field_varint(4, value)
    else:
        body += field_bytes(5, value)
    return body


def event(meta_id, offset_ps, dur_ps, stats=()):
    body = bytearray(field_varint(1, meta_id) + field_varint(2, offset_ps) + field_varint(3, dur_ps))
    for s in stats:
        body += field_bytes(4, s)
    return bytes(body)


def line(lid, name, timestamp_ns, events=()):
    body = bytearray(field_varint(1, lid) + field_bytes(2, name) + field_varint(3, timestamp_ns))
    for e in events:  # a bytearray: appending to bytes would copy it all each time
        body += field_bytes(4, e)
    return bytes(body)


def event_meta(mid, name, stats=()):
    body = field_varint(1, mid) + field_bytes(2, name) + b''.join(field_bytes(5, s) for s in stats)
    return field_bytes(4, field_varint(1, mid) + field_bytes(2, body))


def stat_meta(mid, name):
    return field_bytes(5, field_varint(1, mid) + field_bytes(2, field_varint(1, mid) + field_bytes(2, name)))


def plane(pid, name, lines=(), event_metas=(), stat_metas=(), stats=()):
    """event_metas: (id, name) or (id, name, encoded XStat bodies); stat_metas: (id, name) pairs; lines: encoded XLine
    bodies; stats: encoded XStat bodies."""
    body = bytearray(field_varint(1, pid) + field_bytes(2, name))
    for ln in lines:
        body += field_bytes(3, ln)
    for em in event_metas:
        body += event_meta(*em)
    for mid, n in stat_metas:
        body += stat_meta(mid, n)
    for s in stats:
        body += field_bytes(6, s)
    return bytes(body)


def xspace(planes=(), hostnames=(), errors=(), warnings=()):
    out = bytearray()
    for p in planes:
        out += field_bytes(1, p)
    for e in errors:
        out += field_bytes(2, e)
    for w in warnings:
        out += field_bytes(3, w)
    for h in hostnames:
        out += field_bytes(4, h)
    return bytes(out)
