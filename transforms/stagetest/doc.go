// Package stagetest is what the stage packages' tests share: a small
// test Config, inputs and texts, keyed chunks and stats as collections,
// decoders of every chunk kind into strings, and checks of the shuffles'
// sizes and the spill files.
package stagetest
