/*
 * mcp_json: JSON strings taken whole, with their length.
 *
 * cJSON decodes a string into a C string, so "a\u0000b" reads as "a" to
 * anything that stops at the NUL: a path "x\u0000.bak" would name x, a
 * content "a\u0000b" would write 1 byte of 3. cJSON does decode the
 * whole string into its buffer; only the length is lost. mcp_json_lengths
 * finds it again: it scans the message text for its string tokens (member
 * names and values, in document order, as cJSON builds the tree), counts
 * each one's decoded bytes and keeps a value's count in the item's
 * valuedouble, which cJSON leaves unused for strings (cJSON_Duplicate
 * copies it).
 *
 * Calling sequence: doc = cJSON_ParseWithLengthOpts(text, len + 1, ...);
 * mcp_json_lengths(doc, text, len); then mcp_json_strlen(item) for any
 * string item of doc.
 */
#ifndef ARCTURN_MCP_JSON_H
#define ARCTURN_MCP_JSON_H

#include <stddef.h>

#include <cJSON.h>

/*
 * Record the length of every string value of doc, parsed from text (len
 * bytes). 0; -1 with errno EINVAL when a member name holds a NUL (no
 * caller could tell two such names apart) or the text does not match the
 * tree, ENOMEM when out of memory.
 */
int	mcp_json_lengths(cJSON *doc, const char *text, size_t len);

/*
 * The length of string item s in bytes: the recorded one, else (an item
 * made in memory, or not a string) strlen of its valuestring, 0 for none.
 */
size_t	mcp_json_strlen(const cJSON *s);

#endif
