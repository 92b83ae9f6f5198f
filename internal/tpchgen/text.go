package tpchgen

import "sync"

// Comments are drawn the way TPC-H 4.2.2.10 prescribes: a large pool of
// pseudo-text is generated once from a small English-like grammar, and each
// comment is a substring of that pool at a random offset with a random
// length. The specification's pool is 300 MB; ours is textPoolSize bytes,
// which keeps start-up fast while still giving millions of distinct
// comments. The pool depends only on the seed.

const textPoolSize = 8 << 20

// textPool is immutable once built and shared by all goroutines.
type textPool struct{ text string }

var (
	poolMu    sync.Mutex
	poolCache = map[uint64]*textPool{}
)

// poolFor returns the (cached) text pool of a seed. A handful of pools are
// kept; tests and the CLI use one or two seeds.
func poolFor(seed uint64) *textPool {
	poolMu.Lock()
	defer poolMu.Unlock()
	if p, ok := poolCache[seed]; ok {
		return p
	}
	if len(poolCache) >= 4 {
		clear(poolCache)
	}
	p := buildTextPool(seed, textPoolSize)
	poolCache[seed] = p
	return p
}

// buildTextPool generates size bytes of grammar text: sentences separated
// by single spaces.
func buildTextPool(seed uint64, size int) *textPool {
	r := rngAt(seed, streamTextPool, 0)
	buf := make([]byte, 0, size+256)
	for len(buf) < size {
		buf = appendSentence(buf, &r)
	}
	return &textPool{text: string(buf[:size])}
}

func appendWord(buf []byte, w string) []byte {
	if len(buf) > 0 {
		buf = append(buf, ' ')
	}
	return append(buf, w...)
}

func appendSentence(buf []byte, r *rng) []byte {
	for _, part := range sentences.pick(r) {
		switch part {
		case 'N':
			buf = appendNounPhrase(buf, r)
		case 'V':
			buf = appendVerbPhrase(buf, r)
		case 'P':
			buf = appendWord(buf, prepositions.pick(r))
			buf = appendWord(buf, "the")
			buf = appendNounPhrase(buf, r)
		case 'T':
			buf = append(buf, terminators.pick(r)...)
		}
	}
	return buf
}

func appendNounPhrase(buf []byte, r *rng) []byte {
	for _, part := range nounPhrases.pick(r) {
		switch part {
		case 'n':
			buf = appendWord(buf, nouns.pick(r))
		case 'j':
			buf = appendWord(buf, adjectives.pick(r))
		case 'd':
			buf = appendWord(buf, adverbs.pick(r))
		case ',':
			buf = append(buf, ',')
		}
	}
	return buf
}

func appendVerbPhrase(buf []byte, r *rng) []byte {
	for _, part := range verbPhrases.pick(r) {
		switch part {
		case 'v':
			buf = appendWord(buf, verbs.pick(r))
		case 'x':
			buf = appendWord(buf, auxiliaries.pick(r))
		case 'd':
			buf = appendWord(buf, adverbs.pick(r))
		}
	}
	return buf
}

// comment returns a substring of the pool with a length uniform in
// [minLen, maxLen], starting at a uniform offset.
func (p *textPool) comment(r *rng, minLen, maxLen int) string {
	n := int(r.between(int64(minLen), int64(maxLen)))
	off := r.index(len(p.text) - maxLen)
	return p.text[off : off+n]
}

// vstringAlphabet is the 64-character alphabet of random v-strings.
const vstringAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, "

// appendVString appends a random v-string (4.2.2.7) of length uniform in
// [minLen, maxLen]; one draw supplies ten characters.
func appendVString(dst []byte, r *rng, minLen, maxLen int) []byte {
	n := int(r.between(int64(minLen), int64(maxLen)))
	var bits uint64
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			bits = r.next()
		}
		dst = append(dst, vstringAlphabet[bits&63])
		bits >>= 6
	}
	return dst
}

// appendPhone appends a phone number (4.2.2.9) for a nation:
// CC-LLL-LLL-LLLL with country code nationkey+10.
func appendPhone(dst []byte, r *rng, nationkey int64) []byte {
	dst = appendPadded(dst, nationkey+10, 2)
	dst = append(dst, '-')
	dst = appendPadded(dst, r.between(100, 999), 3)
	dst = append(dst, '-')
	dst = appendPadded(dst, r.between(100, 999), 3)
	dst = append(dst, '-')
	return appendPadded(dst, r.between(1000, 9999), 4)
}

// appendPadded appends a non-negative v in decimal, zero-padded to width.
func appendPadded(dst []byte, v int64, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v > 0 || i == len(tmp) {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	for n := len(tmp) - i; n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, tmp[i:]...)
}
