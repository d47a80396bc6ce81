package fdyno

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strconv"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Large items. FoundationDB values hold at most 100,000 bytes and are best
// kept small, so an item whose encoding is longer than the table's chunk
// threshold is stored in two parts:
//
//	i/<key>       manifest = 0x81 length:uvarint count:uvarint crc32c:4 bytes (big-endian)
//	c/<key>/<n>   bytes [n*ChunkSize, (n+1)*ChunkSize) of the encoding, n = 0 … count-1
//
// Invariants:
//
//  1. The first byte of a head value says what it is: codecVersion (0x01)
//     for an inline item, manifestVersion (0x81) for a manifest. The two
//     can never be confused.
//  2. An item key has chunks if and only if its head is a manifest, and
//     then exactly count of them: every write of a key clears the key's
//     whole chunk range first (write.go), so overwrites, updates and
//     deletes leave no orphans.
//  3. The concatenated chunks have the manifest's length and CRC-32C, so
//     a torn or mixed set of chunks is reported as corrupt, never decoded.
//
// Reads start every chunk's future before waiting on any of them.
const (
	// DefaultChunkThreshold is the encoded item size above which an item
	// is chunked, unless [WithChunkThreshold] sets another.
	DefaultChunkThreshold = 10 * 1024
	// ChunkSize is the number of encoded bytes per chunk.
	ChunkSize = 64 * 1024
	// maxChunkThreshold keeps an inline item's value under FoundationDB's
	// value limit of 100,000 bytes.
	maxChunkThreshold = 90_000

	manifestVersion = 0x81
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// manifest describes a chunked item.
type manifest struct {
	length int
	count  int
	crc    uint32
}

func newManifest(enc []byte) manifest {
	return manifest{length: len(enc), count: (len(enc) + ChunkSize - 1) / ChunkSize, crc: crc32.Checksum(enc, crc32c)}
}

func (m manifest) encode() []byte {
	b := []byte{manifestVersion}
	b = binary.AppendUvarint(b, uint64(m.length))
	b = binary.AppendUvarint(b, uint64(m.count))
	return binary.BigEndian.AppendUint32(b, m.crc)
}

func isManifest(head []byte) bool { return len(head) > 0 && head[0] == manifestVersion }

func decodeManifest(head []byte) (manifest, error) {
	fail := func(reason string) (manifest, error) {
		return manifest{}, &CorruptError{What: "chunk manifest", Reason: reason}
	}
	if !isManifest(head) {
		return fail("not a manifest")
	}
	rest := head[1:]
	length, n := binary.Uvarint(rest)
	if n <= 0 || length == 0 || length > 4*MaxItemSizeLimit {
		return fail("bad length")
	}
	rest = rest[n:]
	count, n := binary.Uvarint(rest)
	if n <= 0 || count != (length+ChunkSize-1)/ChunkSize {
		return fail("chunk count " + strconv.FormatUint(count, 10) + " does not match length " + strconv.FormatUint(length, 10))
	}
	rest = rest[n:]
	if len(rest) != 4 {
		return fail("bad checksum field")
	}
	m := manifest{length: int(length), count: int(count), crc: binary.BigEndian.Uint32(rest)}
	if !bytes.Equal(m.encode(), head) {
		return fail("not in canonical form")
	}
	return m, nil
}

// writeChunked stores enc as a manifest at the item key and its chunks.
// The caller has cleared the chunk range.
func writeChunked(tr fdb.Transaction, keys tableKeys, kv, enc []byte) {
	m := newManifest(enc)
	for n := 0; n < m.count; n++ {
		end := min((n+1)*ChunkSize, len(enc))
		tr.Set(keys.chunkKey(kv, n), enc[n*ChunkSize:end])
	}
	tr.Set(keys.itemKey(kv), m.encode())
}

// startChunks starts the reads of every chunk of the item whose packed key
// values are kv and whose manifest is m, all at once; a Query page starts
// those of all its items before it waits on any.
func startChunks(rt fdb.ReadTransaction, keys tableKeys, kv []byte, m manifest) []fdb.FutureByteSlice {
	futures := make([]fdb.FutureByteSlice, m.count)
	for n := range futures {
		futures[n] = rt.Get(keys.chunkKey(kv, n))
	}
	return futures
}

// joinChunks waits for the chunk reads startChunks started and checks them
// against the manifest: every chunk's length, then the checksum.
func joinChunks(m manifest, futures []fdb.FutureByteSlice) ([]byte, error) {
	enc := make([]byte, 0, m.length)
	for n, f := range futures {
		chunk, err := f.Get()
		if err != nil {
			return nil, err
		}
		want := min(ChunkSize, m.length-n*ChunkSize)
		if len(chunk) != want {
			return nil, &CorruptError{What: "chunk", Offset: len(enc), Reason: "chunk " + strconv.Itoa(n) + " has " + strconv.Itoa(len(chunk)) + " bytes, want " + strconv.Itoa(want)}
		}
		enc = append(enc, chunk...)
	}
	if crc32.Checksum(enc, crc32c) != m.crc {
		return nil, &CorruptError{What: "chunk", Reason: "checksum mismatch"}
	}
	return enc, nil
}
