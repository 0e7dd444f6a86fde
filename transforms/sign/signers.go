package sign

import (
	"sync"

	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/sketch/signature"
)

// The signers of the signature pass (signatures.go) and of the exact
// checks (near.ExactChecks): one configuration, so one pool in the process.

// exactSigner builds the signer of sg: the signature pass's, whose shingle
// sets exact Jaccard compares.
func exactSigner(sg job.Signing) (*signature.Signer, error) {
	sc, err := sg.Config()
	if err != nil {
		return nil, err
	}
	return signature.New(sc)
}

// SignerPool hands out exact signers (see exactSigner), one to each
// goroutine at a time.
type SignerPool struct {
	sg   job.Signing
	mu   sync.Mutex
	free []*signature.Signer
}

// signerPools holds one SignerPool per signer configuration in the
// process: process-wide by nature, the DoFns of the signature pass and the
// exact checks of every round share it, so that a signer, whose token and
// shingle buffers grow to the longest document it has cut, exists once per
// goroutine at work rather than once per DoFn instance and goroutine.
var signerPools sync.Map // signature.Config -> *SignerPool

// SharedSigners returns the process's signerPool for sg's exact signers,
// checking the configuration by building the first signer.
func SharedSigners(sg job.Signing) (*SignerPool, error) {
	sc, err := sg.Config()
	if err != nil {
		return nil, err
	}
	key := sc
	if p, ok := signerPools.Load(key); ok {
		return p.(*SignerPool), nil
	}
	s, err := exactSigner(sg)
	if err != nil {
		return nil, err
	}
	p := &SignerPool{sg: sg}
	p.Put(s)
	got, _ := signerPools.LoadOrStore(key, p)
	return got.(*SignerPool), nil
}

func (p *SignerPool) Get() (*signature.Signer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s, nil
	}
	return exactSigner(p.sg)
}

func (p *SignerPool) Put(s *signature.Signer) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}
