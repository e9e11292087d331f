// Class 4: candidate tiles offered on one exact capability; the other GPUs
// of the family still get the generic candidates.
#include <vector>

std::vector<int> candidate_tiles(int sm) {
  std::vector<int> tiles = {128, 64};
  if (sm == 120) {
    tiles.push_back(256);
  }
  return tiles;
}
