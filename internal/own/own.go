// Package own lets this module's packages tell the middleware that bytes
// it is given are owned: a store that wraps a MemoryStore and passes its
// Get through ([Store]), and a request body whose bytes are never written
// again ([Body]). Only this module's packages can implement them: their
// methods take a [Token], which no other module can name.
package own

// Token is the argument of the interfaces' methods.
type Token struct{}

// Store is a store whose Get is the Get of the store OwnStore returns,
// with the same documents, errors and effects (nil when there is none).
type Store interface {
	OwnStore(Token) any
}

// Body is a request body that holds all its bytes, unread: HeldBytes
// returns them, and they are never written again, by anyone, so that the
// middleware may keep them (its tape cache) without a copy.
type Body interface {
	HeldBytes(Token) []byte
}
