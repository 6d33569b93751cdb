// Package mappings holds the YAML mapping files that say how each dialect's
// words line up with the canonical vocabularies, and the loader that reads
// them. The five defaults are embedded; later files layer over them.
//
// A file names one dialect and gives its vocabulary tables:
//
//	dialect: swarm
//	vocabulary:
//	  priority:
//	    words:            # the dialect's word: the canonical value it means
//	      low: low
//	      urgent: critical
//	    nearest:          # canonical values with no word: the word written instead
//	      batch: low
//	    fold_case: false  # true: words match whatever their case
//
// The first word listed for a canonical value is the one encoders write.
// Table kinds are the canonical vocabularies: act, outcome, error, priority.
package mappings
