# ncompare.rb DATA_DIR MRESULT_ROOT... -- NCOMPARE_ARGS...: lkp's ncompare
# (LKP_SRC's lib/compare.rb, called as sbin/ncompare calls it) on result
# roots outside lkp's data store. lib/constant.rb fixes the store at
# /lkp/data (KTEST_DATA_DIR); here it is DATA_DIR, made with lkp's own
# table layouts, and each MRESULT_ROOT (a directory of runs 0, 1, ...
# that sbin/unite-stats united) is registered in it by its job's axes as
# a link, the way lkp's result server keeps them.
LKP_SRC = ENV.fetch('LKP_SRC')
require "#{LKP_SRC}/lib/constant"
Object.send(:remove_const, :KTEST_DATA_DIR)
KTEST_DATA_DIR = ARGV.shift.freeze
require "#{LKP_SRC}/lib/compare"

sep = ARGV.index('--') or abort 'usage: ncompare.rb DATA_DIR MRESULT_ROOT... -- NCOMPARE_ARGS...'
mrts = ARGV[0...sep]
args = ARGV[(sep + 1)..]
MResultRootTableSet.create_tables_layout
mrts.each do |d|
  job = Job.open(File.join(d, '0', 'job.yaml'))
  node = mrt_table_set.new_node(job.axes)
  FileUtils.mkdir_p File.dirname(node.path)
  File.symlink File.realpath(d), node.path unless File.exist? node.path
  node.save_desc(DataStore::CREATE_TIME => Time.now)
  node.table.index_node node
end
Compare.compare args
