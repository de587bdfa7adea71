/* test_xplane_fields.c - every named XSpace field number and tag agrees with the descriptors protobuf-c generates from xplane.proto. */
#include "check.h"
#include "formats/in/xplane_fields.h"
#include "xplane.pb-c.h"

/* The reader's table, one row per named field. */
struct row {
	const char *msg, *name;
	unsigned number, tag, wire;
};

#define XP_ROW_(msg, field, name, num, wt) {#msg, #name, XPF_##msg##_##field, XPT_##msg##_##field, XP_WT_##wt},
static const struct row rows[] = {XP_SCHEMA_FIELDS(XP_ROW_)};
#define N_ROWS (sizeof rows / sizeof rows[0])

/* The messages the table names, with their descriptors (MAP: the entry of both metadata maps). */
struct msg {
	const char *name;
	const ProtobufCMessageDescriptor *desc;
};
static const struct msg msgs[] = {
	{"SPACE", &tensorflow__profiler__xspace__descriptor},
	{"PLANE", &tensorflow__profiler__xplane__descriptor},
	{"MAP", &tensorflow__profiler__xplane__event_metadata_entry__descriptor},
	{"MAP", &tensorflow__profiler__xplane__stat_metadata_entry__descriptor},
	{"LINE", &tensorflow__profiler__xline__descriptor},
	{"EVENT", &tensorflow__profiler__xevent__descriptor},
	{"STAT", &tensorflow__profiler__xstat__descriptor},
	{"EMETA", &tensorflow__profiler__xevent_metadata__descriptor},
	{"SMETA", &tensorflow__profiler__xstat_metadata__descriptor},
};
#define N_MSGS (sizeof msgs / sizeof msgs[0])

/* The wire type protobuf-c reads a field with (a packed repeated scalar is one LEN field). */
static unsigned wire_of(const ProtobufCFieldDescriptor *f)
{
	if (f->label == PROTOBUF_C_LABEL_REPEATED && (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED))
		return XP_WT_LEN;
	switch (f->type) {
	case PROTOBUF_C_TYPE_DOUBLE:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return XP_WT_I64;
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return XP_WT_I32;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return XP_WT_LEN;
	default:
		return XP_WT_VARINT;
	}
}

/* Each row: the field exists in its message(s), with that number and wire type; the tag is
 * number << 3 | wire type and fits the one byte the fast paths compare. */
static bool row_matches(const struct row *r, const ProtobufCMessageDescriptor *d)
{
	const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, r->name);
	if (!CHECK(f != NULL))
		return false;
	bool ok = CHECK_INT(r->number, f->id);
	return CHECK_INT(r->wire, wire_of(f)) && ok;
}

static void test_rows_match_descriptors(void)
{
	for (size_t i = 0; i < N_ROWS; i++) {
		const struct row *r = &rows[i];
		int found = 0;
		bool ok = true;
		for (size_t m = 0; m < N_MSGS; m++)
			if (!strcmp(msgs[m].name, r->msg)) {
				found++;
				ok &= row_matches(r, msgs[m].desc);
			}
		ok &= CHECK(found > 0);
		ok &= CHECK_INT(r->tag, (r->number << 3) | r->wire);
		ok &= CHECK(r->tag < 0x80);
		if (!ok)
			fprintf(stderr, "  in the row %s %s\n", r->msg, r->name);
	}
}

/* Every field of every message is named once: a field added to xplane.proto must be named (and its
 * handling decided) before this passes. */
static void test_every_field_named_once(void)
{
	for (size_t m = 0; m < N_MSGS; m++) {
		const ProtobufCMessageDescriptor *d = msgs[m].desc;
		for (unsigned k = 0; k < d->n_fields; k++) {
			int named = 0;
			for (size_t i = 0; i < N_ROWS; i++)
				named += !strcmp(rows[i].msg, msgs[m].name) && !strcmp(rows[i].name, d->fields[k].name);
			if (!CHECK_INT(named, 1))
				fprintf(stderr, "  %s.%s\n", d->name, d->fields[k].name);
		}
	}
}

/* The tags the event loop compares, spelled out as spec/xplane-format.md §1.2 lists them: the table
 * and the spec must not drift apart either. */
static void test_hot_tags(void)
{
	CHECK_INT(XPT_LINE_EVENTS, 0x22);
	CHECK_INT(XPT_EVENT_METADATA_ID, 0x08);
	CHECK_INT(XPT_EVENT_OFFSET_PS, 0x10);
	CHECK_INT(XPT_EVENT_DURATION_PS, 0x18);
	CHECK_INT(XPT_EVENT_STATS, 0x22);
	CHECK_INT(XPT_EVENT_NUM_OCCURRENCES, 0x28);
	CHECK_INT(XPT_STAT_METADATA_ID, 0x08);
	CHECK_INT(XPT_STAT_DOUBLE_VALUE, 0x11);
	CHECK_INT(XPT_STAT_UINT64_VALUE, 0x18);
	CHECK_INT(XPT_STAT_INT64_VALUE, 0x20);
	CHECK_INT(XPT_STAT_STR_VALUE, 0x2A);
	CHECK_INT(XPT_STAT_BYTES_VALUE, 0x32);
	CHECK_INT(XPT_STAT_REF_VALUE, 0x38);
	CHECK_INT(XPT_EMETA_CHILD_ID, 0x32);
	CHECK_INT(XPT_LINE_DISPLAY_NAME, 0x5A);
}

int main(void)
{
	static const struct test tests[] = {
		TEST(test_rows_match_descriptors),
		TEST(test_every_field_named_once),
		TEST(test_hot_tags),
	};
	return RUN_TESTS("xplane_fields", tests);
}
