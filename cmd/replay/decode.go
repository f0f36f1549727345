package main

import (
	"errors"
	"flag"

	"github.com/reasonreplay/replay/codecs/openai"
)

func defineDecode(fs *flag.FlagSet) func(*env, []string) error {
	var f inputFlags
	f.register(fs, "api")
	f.single = true
	compact := fs.Bool("compact", false, "print the document on one line")
	return func(e *env, pos []string) error {
		if err := oneOperand(pos); err != nil {
			return err
		}
		if err := f.check("api"); err != nil {
			return err
		}
		src, err := open(e, pos[0])
		if err != nil {
			return err
		}
		defer src.close()
		t, err := f.readTurn(e, "decode", src, false)
		var ee *exitError
		if errors.As(err, &ee) && ee.code == 2 {
			// A usage mistake: nothing was decoded worth printing.
			return err
		}
		if t != nil {
			writeTurn(e.stdout, t, *compact)
		}
		if err != nil && t != nil {
			return withNote(err, "(the partial turn was printed, marked incomplete)")
		}
		return err
	}
}

func oneOperand(pos []string) error {
	if len(pos) != 1 {
		return usageError("want one FILE (or - for standard input), got %d", len(pos))
	}
	return nil
}

// check refuses unknown --api and --framing values before input is read.
func (f *inputFlags) check(apiFlag string) error {
	if err := f.checkAPI(apiFlag); err != nil {
		return err
	}
	return f.checkFraming()
}

func defineEncode(fs *flag.FlagSet) func(*env, []string) error {
	var f inputFlags
	f.register(fs, "api")
	f.single = true
	stored := fs.Bool("stored", false, "openai-responses: the response was stored (store: true), so reasoning items are sent as item_reference by id")
	compact := fs.Bool("compact", false, "print the message on one line")
	return func(e *env, pos []string) error {
		if err := oneOperand(pos); err != nil {
			return err
		}
		if err := f.check("api"); err != nil {
			return err
		}
		src, err := open(e, pos[0])
		if err != nil {
			return err
		}
		defer src.close()
		t, err := f.readTurn(e, "encode", src, true)
		if err != nil {
			return err
		}
		// The turn's provenance names its codec; the flags override.
		p := t.Provenance
		g := f.merge(guess{api: p.API, provider: p.Provider, model: p.Model})
		if g.api == "" || g.api == "auto" {
			return usageError("the turn does not say its API (provenance.api); name it with --api")
		}
		c, err := lookup(g.api, g.provider, g.model)
		if err != nil {
			return err
		}
		if *stored {
			oc, ok := c.(openai.Codec)
			if !ok {
				return usageError("--stored applies to --api openai-responses only")
			}
			oc.Stored = true
			c = oc
		}
		out, err := c.Encode(t)
		if err != nil {
			return refused(err)
		}
		writeJSON(e.stdout, out, *compact)
		return nil
	}
}
