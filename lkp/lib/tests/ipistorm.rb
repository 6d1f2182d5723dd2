# The stats of the suite's programs (ipistorm, idle_reentry, nohz_csd and
# those lkp/install.sh generates from a declaration), from their
# record (the stdout of run): each measured iteration is a line
# "==> iter-NNN.txt <==" and the result the module wrote, KEY=VALUE lines
# of format BENCH/1 (the suite's docs/ipistorm.md, idle_reentry.md,
# nohz_csd.md). For every iteration, one "stat: value" line per stat, the
# same stats in every iteration (a stat missing from one of them, such as
# a mean of no samples, or not a number in one, is left out of all), so
# lkp keeps an array per stat and its mean. Only aggregates (total.*, the
# run's own figures) are stats; names carry their unit.
module IpistormStats
  ITERATION = /^==> iter-[0-9]+\.txt <==$/.freeze
  LINE = /^([A-Za-z0-9_.]+)=(.*)$/.freeze
  NUMBER = /^-?[0-9]+(\.[0-9]+)?$/.freeze

  def self.iterations(input)
    iterations = []
    current = nil
    input.each_line do |line|
      line = line.chomp
      if line =~ ITERATION
        current = {}
        iterations << current
      elsif current && line =~ LINE
        current[$1] ||= $2
      else
        current = nil
      end
    end
    iterations
  end

  # dump BENCH, { stat => result key }, INPUT, FORMATS: print the stats; raise
  # (exit status not 0) on a result of a format not in FORMATS (default
  # BENCH/1; a Regexp: every format it matches, BENCH/N), iterations of
  # different formats, or a status other than complete.
  def self.dump(bench, stats, input = $stdin, formats = ["#{bench}/1"])
    iterations = iterations(input)
    known = formats.is_a?(Regexp) ? ->(f) { formats.match?(f.to_s) } : ->(f) { formats.include?(f) }
    want = formats.is_a?(Regexp) ? "#{bench}/N" : formats.join(' or ')
    iterations.each_with_index do |result, i|
      raise "iteration #{i + 1}: format=#{result['format']}, not #{want}" unless known.call(result['format'])
      raise "iteration #{i + 1}: format=#{result['format']}, not #{iterations[0]['format']} as iteration 1" unless result['format'] == iterations[0]['format']
      raise "iteration #{i + 1}: status=#{result['status']}" unless result['status'] == 'complete'
    end
    kept = stats.select { |_stat, key| iterations.all? { |result| result[key] =~ NUMBER } }
    iterations.each do |result|
      kept.each { |stat, key| puts "#{stat}: #{result[key]}" }
    end
  end
end
