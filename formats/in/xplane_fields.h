/* xplane_fields.h - the XSpace schema's field numbers and one-byte wire tags, named (formats/xplane.proto). */
#ifndef XPSTAT_XPLANE_FIELDS_H
#define XPSTAT_XPLANE_FIELDS_H

/* Protobuf wire types: the low three bits of a tag. */
enum xp_wire_type {
	XP_WT_VARINT = 0,
	XP_WT_I64 = 1,
	XP_WT_LEN = 2,
	XP_WT_SGROUP = 3,
	XP_WT_EGROUP = 4,
	XP_WT_I32 = 5
};

/*
 * Every field of the schema, once: X(MESSAGE, FIELD, name in xplane.proto, number, wire type).
 * Each row gives the field number XPF_<MESSAGE>_<FIELD> (what the general decoders switch on) and the
 * tag XPT_<MESSAGE>_<FIELD> = number << 3 | wire type (what the fast paths compare: every number is
 * below 16, so each tag is one byte). MAP is the entry of both metadata maps. tests/unit/test_xplane_fields.c
 * checks every row against the descriptors protobuf-c generates from xplane.proto, and that no field of
 * the schema is missing here.
 */
#define XP_SCHEMA_FIELDS(X)                                            \
	X(SPACE, PLANES, planes, 1, LEN)                               \
	X(SPACE, ERRORS, errors, 2, LEN)                               \
	X(SPACE, WARNINGS, warnings, 3, LEN)                           \
	X(SPACE, HOSTNAMES, hostnames, 4, LEN)                         \
	X(PLANE, ID, id, 1, VARINT)                                    \
	X(PLANE, NAME, name, 2, LEN)                                   \
	X(PLANE, LINES, lines, 3, LEN)                                 \
	X(PLANE, EVENT_METADATA, event_metadata, 4, LEN)               \
	X(PLANE, STAT_METADATA, stat_metadata, 5, LEN)                 \
	X(PLANE, STATS, stats, 6, LEN)                                 \
	X(MAP, KEY, key, 1, VARINT)                                    \
	X(MAP, VALUE, value, 2, LEN)                                   \
	X(LINE, ID, id, 1, VARINT)                                     \
	X(LINE, NAME, name, 2, LEN)                                    \
	X(LINE, TIMESTAMP_NS, timestamp_ns, 3, VARINT)                 \
	X(LINE, EVENTS, events, 4, LEN)                                \
	X(LINE, DURATION_PS, duration_ps, 9, VARINT)                   \
	X(LINE, DISPLAY_ID, display_id, 10, VARINT)                    \
	X(LINE, DISPLAY_NAME, display_name, 11, LEN)                   \
	X(EVENT, METADATA_ID, metadata_id, 1, VARINT)                  \
	X(EVENT, OFFSET_PS, offset_ps, 2, VARINT)                      \
	X(EVENT, DURATION_PS, duration_ps, 3, VARINT)                  \
	X(EVENT, STATS, stats, 4, LEN)                                 \
	X(EVENT, NUM_OCCURRENCES, num_occurrences, 5, VARINT)          \
	X(STAT, METADATA_ID, metadata_id, 1, VARINT)                   \
	X(STAT, DOUBLE_VALUE, double_value, 2, I64)                    \
	X(STAT, UINT64_VALUE, uint64_value, 3, VARINT)                 \
	X(STAT, INT64_VALUE, int64_value, 4, VARINT)                   \
	X(STAT, STR_VALUE, str_value, 5, LEN)                          \
	X(STAT, BYTES_VALUE, bytes_value, 6, LEN)                      \
	X(STAT, REF_VALUE, ref_value, 7, VARINT)                       \
	X(EMETA, ID, id, 1, VARINT)                                    \
	X(EMETA, NAME, name, 2, LEN)                                   \
	X(EMETA, METADATA, metadata, 3, LEN)                           \
	X(EMETA, DISPLAY_NAME, display_name, 4, LEN)                   \
	X(EMETA, STATS, stats, 5, LEN)                                 \
	/* repeated int64, packed as proto3 writes it; one varint each (0x30) is read too */ \
	X(EMETA, CHILD_ID, child_id, 6, LEN)                           \
	X(SMETA, ID, id, 1, VARINT)                                    \
	X(SMETA, NAME, name, 2, LEN)                                   \
	X(SMETA, DESCRIPTION, description, 3, LEN)

#define XP_FIELD_NUMBER_(msg, field, name, num, wt) XPF_##msg##_##field = (num),
#define XP_FIELD_TAG_(msg, field, name, num, wt) XPT_##msg##_##field = ((num) << 3) | XP_WT_##wt,
enum xp_field_number { XP_SCHEMA_FIELDS(XP_FIELD_NUMBER_) };
enum xp_field_tag { XP_SCHEMA_FIELDS(XP_FIELD_TAG_) };

#endif
