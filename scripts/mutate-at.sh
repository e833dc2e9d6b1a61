# Sourced by scripts/mutation.sh and scripts/mutation-schemata.sh.
#
# mutate_at FILE LINE COL TYPE: gremlins' mutation TYPE of the operator at
# LINE:COL (a byte column, as go/token counts), in place; false when there
# is no such operator there.
mutate_at() {
  perl -i -e '
    my ($line, $col, $typ) = splice(@ARGV, 0, 3);
    my %to = (
      CONDITIONALS_NEGATION => {"==" => "!=", "!=" => "==", ">=" => "<", ">" => "<=", "<=" => ">", "<" => ">="},
      CONDITIONALS_BOUNDARY => {">=" => ">", ">" => ">=", "<=" => "<", "<" => "<="},
      ARITHMETIC_BASE       => {"+" => "-", "-" => "+", "*" => "/", "/" => "*", "%" => "*"},
      INVERT_NEGATIVES      => {"-" => "+"},
      INCREMENT_DECREMENT   => {"++" => "--", "--" => "++"},
    );
    my $done = 0;
    while (<>) {
      if ($. == $line && !$done) {
        for my $op (sort { length($b) <=> length($a) } keys %{$to{$typ} || {}}) {
          if (substr($_, $col - 1, length $op) eq $op) {
            substr($_, $col - 1, length $op) = $to{$typ}{$op};
            $done = 1;
            last;
          }
        }
      }
      print;
    }
    exit($done ? 0 : 1);
  ' "$2" "$3" "$4" "$1"
}
